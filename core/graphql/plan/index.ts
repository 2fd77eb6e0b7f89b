/**
 * GraphQL → query IR for database root fields (read API).
 *
 * The planners in a role's schema (`RootFieldEntry.planner`, built by ../schema) call these; the
 * executor only calls `planner.buildIR(field, parentType, ctx)` after graphql-js validation.
 *
 * API:
 *   planSelect(view, field, ctx): RootFieldIR          `<t>` — list select
 *   planSelectByPk(view, field, ctx): RootFieldIR      `<t>_by_pk` — single select, pk args as `where`
 *   planAggregate(view, field, ctx): RootFieldIR       `<t>_aggregate`
 *   rootFieldPlanner(view, kind): DbRootFieldPlanner
 *   buildWhere(view, input, ctx, path): BoolExpIR       a `<t>_bool_exp` value
 *   buildPermissionFilter(table, filterJson, tables): BoolExpIR   a permission filter from metadata
 *   buildOrderBy / buildSelectArgs / buildFields / buildSelect / buildAggregateSelect
 *   planFunctionSelect / planFunctionAggregate / planFunctionMutation, functionPlanner(fv, kind)
 *                                                      tracked functions (./function.ts)
 *   buildCall(fn, args, argViews, input, argsType, ctx, path): FunctionCallIR
 *                                                      an `args` object → call arguments
 *
 * Contract with the executor (plan caching per schema version, role, query text, operation):
 *   - A variable at a scalar leaf (comparison value, `limit`, `offset`, pk argument) becomes
 *     `{kind: 'variable', name, path: []}`; the plan is shared across its values.
 *   - `ctx.readVariable` is called only where the value shapes the statement: a whole `where`
 *     or `order_by` object, `distinct_on`, any object or list of objects, `@include/@skip(if:)`,
 *     `count(columns:, distinct:)`, enum values that must be mapped (graphql-default enum tables),
 *     list literals holding variables (`_in: [$a, $b]`). Leaves inside a value read this way are
 *     constants.
 *   - At bind time the executor must reject, for `{kind: 'variable'}` comparison values, a null
 *     (or missing) value with `validation-failed` "unexpected null value for type '<T>'" (as a
 *     literal null is rejected here: the reference engine never compares with NULL), and a
 *     negative `limit`/`offset` with `not-supported` "unexpected negative value".
 *   - IR always carries database column names; `dbType` on every value is the column's type
 *     (`array: true` for `_in`/`_nin`/`_has_keys_*`).
 *
 * Null semantics (reference engine): `where: {}` and `_and: []` are true, `_or: []` is false,
 * `where: null` / `order_by: null` / `limit: null` mean "absent", `{col: {_eq: null}}` is an error.
 */
export { planSelect, planSelectByPk, planAggregate, rootFieldPlanner, type RootFieldKind } from './root.js';
export { buildWhere, buildPermissionFilter } from './bool-exp.js';
export { buildOrderBy } from './order-by.js';
export { buildSelectArgs, buildFields, buildSelect, buildAggregateSelect } from './select.js';
export { collectFields, type CollectedField } from './selection.js';
export { astInput, jsonInput, type Input } from './input.js';
export { planFunctionSelect, planFunctionAggregate, planFunctionMutation, functionPlanner, buildCall } from './function.js';
export type { TableView, ColumnView, RelationshipView, TableAccess, ComputedFieldView, FunctionView, FunctionArgView } from './view.js';
