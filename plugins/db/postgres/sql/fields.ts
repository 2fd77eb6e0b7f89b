/**
 * The selection of one row: columns, `__typename`, relationships and computed fields. Each
 * relationship (and table computed field) is a `LEFT JOIN LATERAL` sub-select correlated on the
 * parent's base row; every such lateral yields exactly one row (an aggregate, or at most one
 * related row), so the parent's row count and any aggregate over it are unchanged. Computed
 * fields call their function with the base row's whole-row column.
 */
import type { FieldIR } from '../../../../core/sdk/index.js';
import { aggregateLevel } from './aggregate.js';
import { base64Sql, connectionLevel } from './connection.js';
import type { JoinSpec } from './base.js';
import type { CompileContext } from './context.js';
import { type JsonPair, rowJson, textLiteral } from './json-object.js';
import { quoteIdent } from './quote.js';
import { type LevelSql, selectLevel } from './select.js';
import { isBigNumberType } from './types.js';
import { geoJsonSql, isGeoType } from '../extension-types.js';
import { callSql, ROW_KEY } from './function-call.js';
import { columnsRead, visibleWhenSql } from './bool-exp.js';
import { valueSql } from './values.js';

export interface RowParts {
  /** FROM items to append after the level's base: relationship laterals, then the row lateral. */
  laterals: string;
  /** The row's JSON value. */
  expr: string;
  /** Whether the base select must project the whole row (ROW_KEY) for computed fields. */
  wholeRow: boolean;
}

/** A column as it goes into JSON: big numbers as text when the server stringifies them. */
export function columnValueSql(ctx: CompileContext, table: string, name: string, type: string): string {
  const col = table + '.' + quoteIdent(name);
  if (isGeoType(type)) return geoJsonSql(col);
  return ctx.options.stringifyNumericTypes && isBigNumberType(type) ? `(${col})::text` : col;
}

export function fieldsRow(ctx: CompileContext, fields: FieldIR[], table: string, needed: Set<string>): RowParts {
  let laterals = '';
  let wholeRow = false;
  const pairs: JsonPair[] = [];
  const relationship = (mapping: Array<[string, string]>, build: (join: JoinSpec) => LevelSql): string => {
    for (const [parentColumn] of mapping) needed.add(parentColumn);
    const level = build({ parent: table, mapping });
    const r = ctx.alias();
    laterals += ` LEFT JOIN LATERAL (SELECT ${level.expr} AS "v" FROM ${level.from}) AS ${r} ON true`;
    return r + '."v"';
  };
  for (const f of fields) {
    switch (f.kind) {
      case 'column': {
        needed.add(f.name);
        const raw = columnValueSql(ctx, table, f.name, f.type);
        const value = f.upper ? `upper(${raw})` : raw;
        // The path is a parameter: `#>` takes the keys and indexes as text.
        const path = f.jsonPath ? valueSql(ctx, { value: { kind: 'const', value: f.jsonPath.map(String) }, dbType: 'text', array: true }) : null;
        const selected = path ? `(${value} #> ${path})` : value;
        if (!f.visibleWhen) {
          pairs.push({ key: f.alias, expr: selected });
          break;
        }
        if (columnsRead(f.visibleWhen, needed)) wholeRow = true;
        pairs.push({ key: f.alias, expr: visibleWhenSql(ctx, f.visibleWhen, table, selected) });
        break;
      }
      case 'typename':
        pairs.push({ key: f.alias, expr: textLiteral(f.typeName) });
        break;
      case 'objectRelationship':
        pairs.push({ key: f.alias, expr: relationship(f.mapping, (j) => selectLevel(ctx, f.select, j, 'object')) });
        break;
      case 'arrayRelationship':
        pairs.push({ key: f.alias, expr: relationship(f.mapping, (j) => selectLevel(ctx, f.select, j, 'list')) });
        break;
      case 'arrayAggregate':
        pairs.push({ key: f.alias, expr: relationship(f.mapping, (j) => aggregateLevel(ctx, f.aggregate, j)) });
        break;
      case 'arrayConnection':
        pairs.push({ key: f.alias, expr: relationship(f.mapping, (j) => connectionLevel(ctx, f.connection, j)) });
        break;
      case 'nodeId': {
        // The reference's version-1 node id: base64 of `[1, "<schema>", "<table>", <pk>...]`.
        const items = [1, textLiteral(f.table.schema), textLiteral(f.table.name)].map(String);
        for (const c of f.columns) {
          needed.add(c.name);
          items.push(`${table}.${quoteIdent(c.name)}`);
        }
        pairs.push({ key: f.alias, expr: base64Sql(`(json_build_array(${items.join(', ')}))::text`) });
        break;
      }
      case 'computedScalar': {
        wholeRow = true;
        const call = callSql(ctx, f.call, `${table}.${ROW_KEY}`);
        const value = isGeoType(f.type) ? geoJsonSql(call) : ctx.options.stringifyNumericTypes && isBigNumberType(f.type) ? `(${call})::text` : call;
        if (f.visibleWhen && columnsRead(f.visibleWhen, needed)) wholeRow = true;
        pairs.push({ key: f.alias, expr: f.visibleWhen ? visibleWhenSql(ctx, f.visibleWhen, table, value) : value });
        break;
      }
      case 'computedTable':
        wholeRow = true;
        pairs.push({ key: f.alias, expr: relationship([], (j) => selectLevel(ctx, f.select, j, 'list')) });
        break;
      case 'remoteJoin': {
        // The join columns only: the executor swaps this object for the remote answer.
        const items = f.columns.map((c) => {
          needed.add(c.name);
          return `${textLiteral(c.name)}, ${columnValueSql(ctx, table, c.name, c.type)}`;
        });
        pairs.push({ key: f.alias, expr: `json_build_object(${items.join(', ')})` });
        break;
      }
    }
  }
  const row = rowJson(ctx, pairs);
  return { laterals: laterals + row.lateral, expr: row.expr, wholeRow };
}
