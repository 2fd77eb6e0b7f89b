/**
 * GraphQL → mutation IR (../../ir-mutation.ts) for database mutation root fields.
 *
 * API:
 *   mutationFieldPlanner(view, kind): DbRootFieldPlanner
 *     The planner the schema puts beside `insert_<t>`, `insert_<t>_one`, `update_<t>`,
 *     `update_<t>_by_pk`, `update_<t>_many`, `delete_<t>`, `delete_<t>_by_pk`. It is a `db`
 *     planner with `buildMutationIR` set; the executor calls that for mutation operations.
 *   buildInsert / buildUpdate / buildDelete / buildResponseReturn / buildSingleReturn
 *
 * The plan-caching contract is the read planner's (../index.ts): scalar leaves given as
 * variables stay `{kind: 'variable'}` values; whole objects and lists given as variables
 * (`objects: $rows`, `_set: $changes`) are read through `ctx.readVariable`, so the plan is keyed
 * on their values.
 *
 * Permissions are folded in from the role's `MutationView`: presets among the values (insert and
 * update `set`), filters beside `where`, checks as conditions on written rows, and the select
 * permission's filter on the rows a mutation answers with.
 */
export { mutationFieldPlanner, type MutationFieldKind } from './root.js';
export { buildInsert, PLACEHOLDER_COLUMN, type InsertPaths } from './insert.js';
export { buildUpdate, buildDelete } from './update.js';
export { buildResponseReturn, buildSingleReturn } from './output.js';
export { UPDATE_OPERATORS, type UpdateOperatorSpec } from './operators.js';
export type { MutationView, MutationTypeNames, InsertRelationshipView, ColumnAccess } from './view.js';
