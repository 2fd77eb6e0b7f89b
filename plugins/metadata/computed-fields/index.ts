/**
 * Computed-field operations: `<prefix>_add_computed_field` and `<prefix>_drop_computed_field` on
 * `/v1/metadata` for kinds with the `computedFields` capability, `add_computed_field` and
 * `drop_computed_field` on the legacy `/v1/query`.
 * Adding stores the field and rebuilds: the resolver's checks (the function, its table and
 * session arguments, name clashes) fail the operation with `invalid-configuration` and the
 * inconsistent object, as the reference's `buildSchemaCacheFor` does. Dropping refuses while
 * permissions list the field, unless `cascade`. Taps `onMetadataOperation` only; safe to disable.
 */
import {
  ARGS_PATH,
  type ArgsObject,
  assertConsistent,
  catalogIfAvailable,
  computedFieldDependents,
  type ComputedFieldMetadata,
  computedFieldObjectName,
  definePlugin,
  dropDependencyError,
  EngineError,
  expectObject,
  jsonTypeName,
  fieldKind,
  type OperationContext,
  type OperationResult,
  optionalBoolean,
  optionalString,
  parseFailed,
  parseTableName,
  registerMetadataOperations,
  tableKey,
  removeSchemaDependents,
  requireKey,
  requireSourceOfKind,
  requireString,
  requireTable,
  requireTrackedTable,
  sourceNameArg,
  SUCCESS,
  type TableMetadata,
} from '../../../core/sdk/index.js';

const PLUGIN_ID = 'metadata/computed-fields';

/** Whether the prefix's kind maps columns to the function's arguments (the warehouse kind). */
const mapsColumns = (ctx: OperationContext, prefix: string): boolean => ctx.dbKind(prefix).computedFieldArguments === 'columns';

function target(ctx: OperationContext, args: ArgsObject, prefix: string): { sourceName: string; meta: TableMetadata } {
  const table = requireTable(args, 'table', ARGS_PATH);
  // The warehouse kind's operations name their source explicitly (the spec marks it required).
  if (mapsColumns(ctx, prefix)) requireString(args, 'source', ARGS_PATH);
  const source = requireSourceOfKind(ctx.draft, sourceNameArg(args, ARGS_PATH), ctx.dbKind(prefix), ARGS_PATH);
  return { sourceName: source.name, meta: requireTrackedTable(source, table, `${ARGS_PATH}.table`) };
}

/** `{function (R), table_argument?, session_argument?}`, stored with the function as `{schema, name}`. */
function parseDefinition(value: unknown): ComputedFieldMetadata['definition'] {
  const path = `${ARGS_PATH}.definition`;
  const obj = expectObject(value, path);
  const fn = parseTableName(requireKey(obj, 'function', path), `${path}.function`);
  const out: ComputedFieldMetadata['definition'] = { function: { schema: fn.schema, name: fn.name } };
  const tableArgument = optionalString(obj, 'table_argument', path);
  const sessionArgument = optionalString(obj, 'session_argument', path);
  if (tableArgument !== undefined) out.table_argument = tableArgument;
  if (sessionArgument !== undefined) out.session_argument = sessionArgument;
  return out;
}

const COLUMN_FORM_KEYS = ['function', 'argument_mapping', 'return_table'];

/**
 * The warehouse form: `{function: {dataset, name} (R), argument_mapping: {<argument>: <column>} (R),
 * return_table: {dataset, name}}`, stored with `{dataset, name}` names as the reference exports them.
 */
function parseColumnsDefinition(value: unknown): ComputedFieldMetadata['definition'] {
  const path = `${ARGS_PATH}.definition`;
  const obj = expectObject(value, path);
  for (const k of Object.keys(obj)) {
    if (!COLUMN_FORM_KEYS.includes(k)) throw parseFailed(`unexpected key "${k}"; expected one of ${COLUMN_FORM_KEYS.join(', ')}`, `${path}.${k}`);
  }
  const fn = parseTableName(requireKey(obj, 'function', path), `${path}.function`);
  const mapping = expectObject(requireKey(obj, 'argument_mapping', path), `${path}.argument_mapping`);
  const argumentMapping: Record<string, string> = {};
  for (const [argument, column] of Object.entries(mapping)) {
    if (typeof column !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(column)}`, `${path}.argument_mapping.${argument}`);
    argumentMapping[argument] = column;
  }
  const out: ComputedFieldMetadata['definition'] = { function: { dataset: fn.schema, name: fn.name } as unknown as { schema: string; name: string }, argument_mapping: argumentMapping };
  if (obj['return_table'] !== undefined && obj['return_table'] !== null) {
    const t = parseTableName(obj['return_table'], `${path}.return_table`);
    out.return_table = { dataset: t.schema, name: t.name };
  }
  return out;
}

async function addComputedField(ctx: OperationContext, args: ArgsObject, prefix: string): Promise<OperationResult> {
  requireTable(args, 'table', ARGS_PATH);
  const name = requireString(args, 'name', ARGS_PATH);
  if (name === '') throw parseFailed('empty string not allowed', `${ARGS_PATH}.name`);
  const rawDefinition = requireKey(args, 'definition', ARGS_PATH);
  const definition = mapsColumns(ctx, prefix) ? parseColumnsDefinition(rawDefinition) : parseDefinition(rawDefinition);
  const comment = optionalString(args, 'comment', ARGS_PATH);
  const { sourceName, meta } = target(ctx, args, prefix);
  const field: ComputedFieldMetadata = { name, definition };
  if (comment !== undefined) field.comment = comment;
  // The reference inserts by name: adding an existing name replaces that field.
  const others = (meta.computed_fields ?? []).filter((c) => c.name !== name);
  meta.computed_fields = [...others, field];
  ctx.markChanged();
  await assertConsistent(ctx, [computedFieldObjectName(sourceName, meta.table, name)]);
  return SUCCESS;
}

async function dropComputedField(ctx: OperationContext, args: ArgsObject, prefix: string): Promise<OperationResult> {
  const name = requireString(args, 'name', ARGS_PATH);
  const cascade = optionalBoolean(args, 'cascade', ARGS_PATH, false);
  const { sourceName, meta } = target(ctx, args, prefix);
  const source = ctx.draft.sources.find((s) => s.name === sourceName)!;
  if (!(meta.computed_fields ?? []).some((c) => c.name === name)) {
    const resolved = ctx.cache.sources.get(sourceName)?.tables.get(tableKey(meta.table));
    const kind = resolved ? fieldKind(resolved, name) : undefined;
    if (kind && kind !== 'computed field') {
      throw new EngineError('unexpected-payload', `expecting a computed field; but, "${name}" is a ${kind}`, { path: `${ARGS_PATH}.name` });
    }
    throw new EngineError('not-exists', `computed field "${name}" does not exist`, { path: `${ARGS_PATH}.name` });
  }
  const catalog = await catalogIfAvailable(ctx, sourceName);
  // The first dependent is the field itself; the rest are the permissions using it.
  const dependents = computedFieldDependents(source, meta.table, name, catalog).slice(1);
  if (dependents.length > 0 && !cascade) throw dropDependencyError(dependents, ARGS_PATH);
  removeSchemaDependents(ctx.draft, [...dependents, { kind: 'computed_field', source: sourceName, table: meta.table, name }]);
  ctx.markChanged();
  return SUCCESS;
}

type Handler = (ctx: OperationContext, args: ArgsObject, prefix: string) => Promise<OperationResult>;

const OPERATIONS: Record<string, Handler> = { add_computed_field: addComputedField, drop_computed_field: dropComputedField };

export default definePlugin({
  name: 'computed-fields',
  kind: 'metadata',
  register(_container, hooks) {
    registerMetadataOperations(hooks, PLUGIN_ID, { prefixed: OPERATIONS, requires: 'computedFields' });
  },
});
