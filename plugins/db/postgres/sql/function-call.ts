/**
 * Function calls: `"s"."fn"($2::text, "limit" => $3::int4)`, positional arguments first, then
 * named ones (PostgreSQL's mixed notation), every value a typed placeholder. The session argument
 * is `$1` itself (the session JSON every statement receives), and a computed field's row argument
 * is the row of the level the call belongs to.
 */
import { errors, type FunctionCallIR } from '../../../../core/sdk/index.js';
import type { CompileContext } from './context.js';
import { quoteIdent, quoteTable, sqlType } from './quote.js';
import { valueSql } from './values.js';

/**
 * Name of the whole-row column a base select projects when its rows are passed to functions.
 * `_svc_` names are the engine's own, as for the other projected keys.
 */
export const ROW_KEY = quoteIdent('_svc_row');

/** `row`: SQL of the row value for `{kind: 'row'}` arguments; null where there is none. */
export function callSql(ctx: CompileContext, call: FunctionCallIR, row: string | null): string {
  const args = call.args.map((a) => {
    let v: string;
    switch (a.value.kind) {
      case 'value':
        v = valueSql(ctx, a.value.value);
        break;
      case 'session':
        v = `(${ctx.sessionJson()})::${sqlType(a.value.dbType)}`;
        break;
      case 'row':
        if (row === null) throw errors.unexpected('a row argument outside a row context');
        v = row;
        break;
      case 'column':
        // Only the warehouse kind's computed fields map columns to arguments.
        throw errors.unexpected('a column argument in a PostgreSQL call');
    }
    return a.name === null ? v : `${quoteIdent(a.name)} => ${v}`;
  });
  return `${quoteTable(call.function)}(${args.join(', ')})`;
}

