/** One root field → one statement whose single row holds the field's JSON text in `root`. */
import { errors, type CompiledStatement, type CompileOptions, type RootFieldIR, type TableRef } from '../../../../core/sdk/index.js';
import { CompileContext } from './context.js';
import { rootAggregateSql, rootSelectSql } from './select.js';
import { render, type Slot } from './template.js';

/** A compiled read: `text` with `@p0..@pN` parameters that take `order`'s values. */
export interface MssqlStatement extends CompiledStatement {
  order: Slot[];
}

export function compileRootField(ir: RootFieldIR, options: CompileOptions, notNull?: (table: TableRef, column: string) => boolean): MssqlStatement {
  // The kind does not declare `relay`: the relay schema never plans connections over it.
  if (ir.kind === 'connection') throw errors.notSupported('relay connections are not supported by the SQL Server kind');
  const ctx = new CompileContext(options, notNull);
  const marked = ir.kind === 'aggregate' ? rootAggregateSql(ctx, ir.aggregate) : rootSelectSql(ctx, ir.select, ir.single);
  const { text, order } = render(marked, ctx.slots.slots);
  return { text, params: ctx.slots.params, name: text, order };
}
