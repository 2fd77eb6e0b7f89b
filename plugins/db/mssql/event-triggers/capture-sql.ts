/**
 * The capture trigger of one event trigger and operation: `[schema].[notify_svc_<trigger>_<OP>]`,
 * an AFTER INSERT/UPDATE/DELETE trigger on the table (set-based: one firing covers every row of
 * the statement) that builds each row's `{op, data: {old, new}, session_variables,
 * trace_context}` with FOR JSON PATH and writes one event per row into svc_catalog.event_log, in
 * the same transaction as the change. As in the reference: UPDATE pairs DELETED and INSERTED rows
 * by primary key (so it needs one), fires only when a listened column changed, and a row whose
 * primary key changed is sent with `old` null; geometry and geography columns are refused (FOR
 * JSON cannot serialize CLR values). The session variables are the ones the engine's mutations put
 * in SESSION_CONTEXT (source-connection.ts). The body carries a hash of its definition, so
 * unchanged captures are left alone.
 */
import { createHash } from 'node:crypto';
import { EngineError, type CaptureSpec, type ColumnList, type TriggerOperation } from '../../../../core/sdk/index.js';
import { quoteIdent, quoteTable } from '../sql/quote.js';

/** Bumped when the generated T-SQL changes shape, so every capture is re-created once. */
const GENERATOR_VERSION = 1;

/** The SESSION_CONTEXT key the engine's mutations set (sp_set_session_context). */
export const SESSION_CONTEXT_KEY = 'svc.user';

const GEO_TYPES = new Set(['geography', 'geometry']);
const PRECISE_NUMBERS = new Set(['bigint', 'decimal', 'numeric', 'money', 'smallmoney']);
/** Types FOR JSON cannot write as they are: sent as their text. */
const AS_TEXT = new Set(['hierarchyid', 'sql_variant']);

export const captureName = (trigger: string, op: TriggerOperation): string => `notify_svc_${trigger}_${op}`;

/** A T-SQL Unicode string literal (`'` doubled). */
export const sqlString = (s: string): string => `N'${s.replace(/'/g, "''")}'`;

type Column = { name: string; type: string };

function columnsOf(list: ColumnList, spec: CaptureSpec): Column[] {
  if (list === '*') return [...spec.tableColumns];
  return list.map((name) => spec.tableColumns.find((c) => c.name === name) ?? { name, type: 'nvarchar' });
}

/** The reference's refusal: event triggers cannot listen to or send spatial columns. */
export function checkCapturable(spec: CaptureSpec, primaryKey: readonly string[] | null): void {
  for (const [op, def] of Object.entries(spec.operations)) {
    if (!def) continue;
    const used = [...columnsOf(def.payload, spec), ...(op === 'UPDATE' ? columnsOf(def.columns, spec) : [])];
    if (used.some((c) => GEO_TYPES.has(c.type.toLowerCase()))) {
      throw new EngineError('not-supported', 'Event triggers for MS-SQL sources are not supported on tables having Geometry or Geography column types');
    }
    for (const c of used) {
      // A dot in a FOR JSON alias nests the key: such a column could not be sent under its name.
      if (c.name.includes('.')) throw new EngineError('not-supported', `column "${c.name}" cannot be captured by an MS-SQL event trigger: its name holds a dot`);
    }
  }
  if (spec.operations.UPDATE && (primaryKey === null || primaryKey.length === 0)) {
    throw new EngineError('not-supported', 'Update event triggers for MS-SQL sources are only supported on tables with primary keys');
  }
}

function valueSql(alias: string, c: Column, spec: CaptureSpec): string {
  const v = `${alias}.${quoteIdent(c.name)}`;
  const type = c.type.toLowerCase();
  if (AS_TEXT.has(type)) return `CAST(${v} AS NVARCHAR(4000))`;
  if (spec.stringifyNumeric && PRECISE_NUMBERS.has(type)) return `CONVERT(NVARCHAR(100), ${v})`;
  return v;
}

/** `[payload.data.<side>.<col>]` aliases for one side, or a NULL for the whole side. */
function sideSql(side: 'old' | 'new', alias: string | null, list: ColumnList, spec: CaptureSpec): string {
  if (alias === null) return `NULL AS [payload.data.${side}]`;
  return columnsOf(list, spec)
    .map((c) => `${valueSql(alias, c, spec)} AS ${quoteIdent(`payload.data.${side}.${c.name}`)}`)
    .join(', ');
}

/** Builds the events of the rows `from` yields into @svc_events and appends them to the log. */
function writeEvents(spec: CaptureSpec, op: TriggerOperation, old: string, neu: string, from: string): string {
  const session = `JSON_QUERY(CAST(SESSION_CONTEXT(${sqlString(SESSION_CONTEXT_KEY)}) AS NVARCHAR(4000)))`;
  return `SET @svc_events = (SELECT ${sqlString(op)} AS [payload.op], ${old}, ${neu}, ${session} AS [payload.session_variables], NULL AS [payload.trace_context]
    ${from}
    FOR JSON PATH, INCLUDE_NULL_VALUES);
  INSERT INTO svc_catalog.event_log (schema_name, table_name, trigger_name, payload)
  SELECT ${sqlString(spec.table.schema)}, ${sqlString(spec.table.name)}, ${sqlString(spec.name)}, [payload]
  FROM OPENJSON(@svc_events) WITH ([payload] NVARCHAR(MAX) AS JSON);`;
}

function bodySql(spec: CaptureSpec, op: TriggerOperation, primaryKey: readonly string[] | null): string {
  const def = spec.operations[op]!;
  if (op === 'INSERT') return writeEvents(spec, op, sideSql('old', null, def.payload, spec), sideSql('new', '[I]', def.payload, spec), 'FROM INSERTED AS [I]');
  if (op === 'DELETE') return writeEvents(spec, op, sideSql('old', '[D]', def.payload, spec), sideSql('new', null, def.payload, spec), 'FROM DELETED AS [D]');
  const key = primaryKey!;
  const join = key.map((k) => `[I].${quoteIdent(k)} = [D].${quoteIdent(k)}`).join(' AND ');
  const listened = columnsOf(def.columns, spec).map((c) => c.name);
  // NULL-safe "some listened column differs": no row in common between the two sides' values.
  const changed = `NOT EXISTS (SELECT ${listened.map((c) => `[D].${quoteIdent(c)}`).join(', ')} INTERSECT SELECT ${listened.map((c) => `[I].${quoteIdent(c)}`).join(', ')})`;
  const paired = writeEvents(
    spec,
    op,
    sideSql('old', '[D]', def.payload, spec),
    sideSql('new', '[I]', def.payload, spec),
    `FROM DELETED AS [D] JOIN INSERTED AS [I] ON ${join}${listened.length > 0 ? `\n    WHERE ${changed}` : ''}`,
  );
  if (!listened.some((c) => key.includes(c))) return paired;
  // A row whose primary key changed has no DELETED partner: sent with `old` null (the reference's rule).
  const moved = writeEvents(spec, op, sideSql('old', null, def.payload, spec), sideSql('new', '[I]', def.payload, spec), `FROM INSERTED AS [I] WHERE NOT EXISTS (SELECT 1 FROM DELETED AS [D] WHERE ${join})`);
  return `${paired}\n  ${moved}`;
}

/** Identifies the generated definition: the same hash, the same trigger. */
export function captureHash(spec: CaptureSpec, op: TriggerOperation, primaryKey: readonly string[] | null): string {
  const def = spec.operations[op]!;
  const listed = (l: ColumnList) => (l === '*' ? '*' : l.join(','));
  const h = createHash('sha256')
    .update(
      JSON.stringify([
        GENERATOR_VERSION, spec.table, op, listed(def.columns), listed(def.payload), spec.triggerOnReplication, spec.stringifyNumeric,
        spec.tableColumns.map((c) => `${c.name}:${c.type}`), op === 'UPDATE' ? primaryKey : null,
      ]),
    )
    .digest('hex')
    .slice(0, 32);
  return `svc-capture:${h}`;
}

/** CREATE OR ALTER TRIGGER for one operation (alone in its batch, as SQL Server requires). */
export function createCaptureSql(spec: CaptureSpec, op: TriggerOperation, primaryKey: readonly string[] | null): string {
  const name = `${quoteIdent(spec.table.schema)}.${quoteIdent(captureName(spec.name, op))}`;
  // Without trigger_on_replication, changes a replication agent applies do not fire it.
  const replication = spec.triggerOnReplication ? '' : ' NOT FOR REPLICATION';
  return `CREATE OR ALTER TRIGGER ${name} ON ${quoteTable(spec.table)} AFTER ${op}${replication} AS
BEGIN
  /* ${captureHash(spec, op, primaryKey)} */
  SET NOCOUNT ON;
  DECLARE @svc_events NVARCHAR(MAX);
  ${bodySql(spec, op, primaryKey)}
END`;
}

export function dropCaptureSql(schema: string, trigger: string, op: TriggerOperation): string {
  return `DROP TRIGGER IF EXISTS ${quoteIdent(schema)}.${quoteIdent(captureName(trigger, op))}`;
}

/** The hash a trigger body carries, if it is one of ours. */
export function hashInDefinition(definition: string | null): string | null {
  return /\/\* (svc-capture:[0-9a-f]{32}) \*\//.exec(definition ?? '')?.[1] ?? null;
}
