/**
 * The capture trigger of one event trigger and operation: a plpgsql function
 * `svc_catalog."notify_svc_<trigger>_<OP>"()` and an AFTER ... FOR EACH ROW trigger of the same
 * name on the table. The function builds `{old, new}` from the payload columns and, for UPDATE,
 * fires only when a listened column changed (records compared with `<>`, which treats NULLs as
 * equal; types without `<>` fall back to the binary `*<>`), then calls `insert_event_log`, which
 * writes the event in the same transaction as the change. Each function carries a comment with a
 * hash of its definition, so that unchanged captures are not re-created.
 */
import { createHash } from 'node:crypto';
import type { CaptureSpec, ColumnList, TriggerOperation } from '../../../../core/sdk/index.js';
import { quoteIdent, quoteLiteral, quoteTable } from '../sql/quote.js';
import { isBigNumberType } from '../sql/types.js';
import { geoJsonSql, isGeoType } from '../extension-types.js';

/** Bumped when the generated SQL changes shape, so every capture is re-created once. */
const GENERATOR_VERSION = 1;

export const captureName = (trigger: string, op: TriggerOperation): string => `notify_svc_${trigger}_${op}`;

export const captureFunction = (trigger: string, op: TriggerOperation): string => `svc_catalog.${quoteIdent(captureName(trigger, op))}`;

function columnsOf(list: ColumnList, spec: CaptureSpec): Array<{ name: string; type: string }> {
  if (list === '*') return [...spec.tableColumns];
  return list.map((name) => spec.tableColumns.find((c) => c.name === name) ?? { name, type: 'text' });
}

/**
 * `row_to_json(NEW)` for every column, or an object of the chosen ones (numerics as text when
 * asked; geometry and geography as GeoJSON, as the reference's trigger writes them).
 */
function rowJson(record: 'OLD' | 'NEW', list: ColumnList, spec: CaptureSpec): string {
  const typed = columnsOf(list, spec).some((c) => (spec.stringifyNumeric && isBigNumberType(c.type)) || isGeoType(c.type));
  if (list === '*' && !typed) return `row_to_json(${record})`;
  const pairs = columnsOf(list, spec).map((c) => {
    const value = `${record}.${quoteIdent(c.name)}`;
    if (isGeoType(c.type)) return `${quoteLiteral(c.name)}, ${geoJsonSql(value)}`;
    return `${quoteLiteral(c.name)}, ${spec.stringifyNumeric && isBigNumberType(c.type) ? `(${value})::text` : value}`;
  });
  return `json_build_object(${pairs.join(', ')})`;
}

function listenRow(record: 'OLD' | 'NEW', list: ColumnList): string {
  if (list === '*') return `row(${record}.*)`;
  return `row(${list.map((c) => `${record}.${quoteIdent(c)}`).join(', ')})`;
}

export function captureFunctionSql(spec: CaptureSpec, op: TriggerOperation): string {
  const def = spec.operations[op]!;
  const oldData = op === 'INSERT' ? 'NULL' : rowJson('OLD', def.payload, spec);
  const newData = op === 'DELETE' ? 'NULL' : rowJson('NEW', def.payload, spec);
  const insert = `PERFORM svc_catalog.insert_event_log(CAST(TG_TABLE_SCHEMA AS text), CAST(TG_TABLE_NAME AS text), ${quoteLiteral(spec.name)}, TG_OP, json_build_object('old', ${oldData}, 'new', ${newData}));`;
  // INSERT and DELETE always fire: no comparison, and no exception block (a subtransaction per row).
  const body =
    op !== 'UPDATE'
      ? insert
      : `_old := ${listenRow('OLD', def.columns)};
  _new := ${listenRow('NEW', def.columns)};
  BEGIN
    IF _old <> _new THEN
      ${insert}
    END IF;
  EXCEPTION WHEN undefined_function THEN
    IF _old *<> _new THEN
      ${insert}
    END IF;
  END;`;
  return `CREATE OR REPLACE FUNCTION ${captureFunction(spec.name, op)}() RETURNS trigger LANGUAGE plpgsql AS $svc$
DECLARE
  _old record;
  _new record;
BEGIN
  ${body}
  RETURN NULL;
END;
$svc$`;
}

/** The statements that (re)create one capture. */
export function createCaptureSql(spec: CaptureSpec, op: TriggerOperation): string[] {
  const name = quoteIdent(captureName(spec.name, op));
  const table = quoteTable(spec.table);
  const out = [
    captureFunctionSql(spec, op),
    `DROP TRIGGER IF EXISTS ${name} ON ${table}`,
    `CREATE TRIGGER ${name} AFTER ${op} ON ${table} FOR EACH ROW EXECUTE PROCEDURE ${captureFunction(spec.name, op)}()`,
    `COMMENT ON FUNCTION ${captureFunction(spec.name, op)}() IS ${quoteLiteral(captureComment(spec, op))}`,
  ];
  if (spec.triggerOnReplication) out.push(`ALTER TABLE ${table} ENABLE ALWAYS TRIGGER ${name}`);
  return out;
}

export function dropCaptureSql(trigger: string, op: TriggerOperation): string {
  return `DROP FUNCTION IF EXISTS ${captureFunction(trigger, op)}() CASCADE`;
}

/** Identifies the generated definition: same comment, same function and trigger. */
export function captureComment(spec: CaptureSpec, op: TriggerOperation): string {
  const def = spec.operations[op]!;
  const listed = (l: ColumnList) => (l === '*' ? '*' : l.join(','));
  const typed = spec.stringifyNumeric ? spec.tableColumns.map((c) => `${c.name}:${c.type}`).join(',') : '';
  // Only tables with geometry columns hash differently: other captures stay as they are.
  const geo = spec.tableColumns.filter((c) => isGeoType(c.type)).map((c) => c.name);
  const h = createHash('sha256')
    .update(
      JSON.stringify([
        GENERATOR_VERSION, spec.table, op, listed(def.columns), listed(def.payload), spec.triggerOnReplication, spec.stringifyNumeric, typed,
        ...(geo.length > 0 ? [geo] : []),
      ]),
    )
    .digest('hex')
    .slice(0, 32);
  return `svc-capture:${h}`;
}
