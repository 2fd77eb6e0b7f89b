/**
 * One root field → one Standard SQL statement whose single row has one column, `root`, holding
 * the field's whole answer as nested STRUCTs and ARRAYs; the shape says how to write it as JSON.
 */
import { errors, type CompiledStatement, type CompileOptions, type RootFieldIR } from '../../../../core/sdk/index.js';
import { CompileContext } from './context.js';
import type { PagingClause, ParamSlot } from './params.js';
import { aggregateSql, listSql, objectSql } from './select.js';
import type { Shape } from './shape.js';

export interface BigQueryStatement extends CompiledStatement {
  slots: ParamSlot[];
  paging: PagingClause[];
  shape: Shape;
  /** Whether `root` is a list (REPEATED) rather than one object. */
  list: boolean;
  /** Numbers (INT64, FLOAT64, NUMERIC, BIGNUMERIC) are written as JSON strings. */
  stringifyNumbers: boolean;
}

export function compileRootField(ir: RootFieldIR, options: CompileOptions): BigQueryStatement {
  const ctx = new CompileContext(options);
  let compiled;
  let list = false;
  // The kind does not declare `relay`: the relay schema never plans connections over it.
  if (ir.kind === 'connection') throw errors.notSupported('relay connections are not supported by the bigquery kind');
  if (ir.kind === 'aggregate') compiled = aggregateSql(ctx, ir.aggregate);
  else if (ir.single) compiled = objectSql(ctx, ir.select);
  else {
    compiled = listSql(ctx, ir.select, true);
    list = true;
  }
  const text = `SELECT ${compiled.sql} AS \`root\``;
  return {
    text,
    params: ctx.params.params,
    name: text,
    slots: ctx.params.slots,
    paging: ctx.params.paging,
    shape: compiled.shape,
    list,
    stringifyNumbers: options.stringifyNumericTypes,
  };
}
