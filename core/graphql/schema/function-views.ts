/**
 * Role narrowing for functions and computed fields, beside ./views.ts for tables:
 *   - a scalar computed field is visible to admin, and to a role whose select permission lists
 *     it in `computed_fields`; one returning rows, to a role that may select from that table;
 *   - a tracked function is visible to a role that may select from its table and holds an
 *     explicit function permission, or, with `--infer-function-permissions`, to every such role
 *     when it is not VOLATILE (the spec: volatile functions are then exposed to no role).
 * A function or computed field with an argument whose name or type is no GraphQL name is left out.
 */
import type { ResolvedFunction, ResolvedFunctionArg, ResolvedSource, ResolvedTable } from '../../schema-cache/model.js';
import { ADMIN_ROLE } from '../../auth/session.js';
import type { ScalarTypes } from '../../db/scalar-types.js';
import { isGraphQLName } from '../../schema-cache/resolve/graphql-name.js';
import type { ComputedFieldView, FunctionArgView, FunctionView, TableView } from '../plan/view.js';

/** The client-supplied arguments as views; null when one cannot be typed in GraphQL. */
export function argViews(args: readonly ResolvedFunctionArg[], scalars: ScalarTypes): FunctionArgView[] | null {
  const out: FunctionArgView[] = [];
  for (const arg of args) {
    if (arg.role !== 'input') continue;
    const info = scalars.info(arg.type, arg.typeKind ? { typeKind: arg.typeKind } : {});
    if (!info.name || !isGraphQLName(arg.field)) return null;
    const builtIn = scalars.isBuiltInSchema(arg.typeSchema);
    // A row-type argument would share its name with the table's object type when the table is
    // tracked: the reference names its scalar `<type>_scalar`.
    const graphqlType = arg.typeKind === 'composite' ? `${info.name}_scalar` : info.name;
    out.push({ arg, dbType: builtIn ? arg.type : `${arg.typeSchema}.${arg.type}`, info, graphqlType });
  }
  return out;
}

/** The computed fields of `table` that `role` may select, given the role's table views. */
export function computedFieldViews(table: ResolvedTable, role: string, views: ReadonlyMap<string, TableView>): ComputedFieldView[] {
  const listed = role === ADMIN_ROLE ? null : new Set(table.permissions.select.get(role)?.computed_fields ?? []);
  const out: ComputedFieldView[] = [];
  for (const cf of table.computedFields?.values() ?? []) {
    const args = argViews(cf.args, table.scalars);
    if (!args) continue;
    if (cf.returns.kind === 'table') {
      const target = views.get(cf.returns.table);
      if (target) out.push({ cf, field: cf.name, args, scalar: null, target });
      continue;
    }
    if (listed && !listed.has(cf.name)) continue;
    const info = table.scalars.info(cf.returns.type, cf.returns.typeKind ? { typeKind: cf.returns.typeKind } : {});
    if (!info.name) continue;
    out.push({ cf, field: cf.name, args, scalar: { info, graphqlType: info.name }, target: null });
  }
  return out.sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
}

function visible(fn: ResolvedFunction, role: string, inferPermissions: boolean): boolean {
  if (role === ADMIN_ROLE || fn.permissions.has(role)) return true;
  return inferPermissions && fn.exposedAs === 'query' && fn.volatility !== 'volatile';
}

/** The source's tracked functions `role` may call, in name order. */
export function functionViews(
  source: ResolvedSource,
  role: string,
  views: ReadonlyMap<string, TableView>,
  inferPermissions: boolean,
): FunctionView[] {
  const out: FunctionView[] = [];
  for (const key of [...(source.functions?.keys() ?? [])].sort()) {
    const fn = source.functions!.get(key)!;
    const target = views.get(fn.returnTable);
    if (!target || !visible(fn, role, inferPermissions)) continue;
    const args = argViews(fn.args, source.scalars);
    if (args) out.push({ fn, target, args });
  }
  return out;
}
