/**
 * Argument parsing for each table operation, `<prefix>_*` and the legacy `/v1/query` forms, down
 * to the shared handlers in track.ts and customize.ts.
 */
import {
  ARGS_PATH,
  argsObject,
  type ArgsObject,
  LEGACY_PREFIX,
  type MetadataOperation,
  type OperationContext,
  type OperationResult,
  parseTableName,
  requireBoolean,
  requireKey,
  tableTarget,
  trackedTable,
} from '../../../core/sdk/index.js';
import { customFieldsConfiguration, setFederationConfig, setTableCustomization, setTableIsEnum } from './customize.js';
import { federationArg } from './federation.js';
import { parseTableConfiguration } from './table-config.js';
import { trackTable, untrackTable } from './track.js';

export type TableHandler = (op: MetadataOperation, ctx: OperationContext) => Promise<OperationResult>;

function track(ctx: OperationContext, args: ArgsObject, prefix: string, tableValue?: unknown): Promise<OperationResult> {
  const table = tableValue === undefined ? undefined : parseTableName(tableValue, ARGS_PATH);
  const target = tableTarget(ctx, args, prefix, table);
  const configuration = parseTableConfiguration(args.configuration, `${ARGS_PATH}.configuration`);
  const isEnum = args.is_enum === undefined || args.is_enum === null ? false : requireBoolean(args, 'is_enum', ARGS_PATH);
  return trackTable(ctx, { ...target, configuration, isEnum, federation: federationArg(args, ARGS_PATH) });
}

/** `<prefix>_*` operations. */
export const prefixed = {
  track_table: (prefix: string): TableHandler => (op, ctx) => {
    const args = argsObject(op.args);
    // Like the reference, the args may also be the table name itself (`{schema, name}`).
    const bare = !('table' in args) && 'name' in args;
    return track(ctx, args, prefix, bare ? { schema: args.schema, name: args.name } : undefined);
  },
  untrack_table: (prefix: string): TableHandler => (op, ctx) => {
    const args = argsObject(op.args);
    return untrackTable(ctx, tableTarget(ctx, args, prefix), args);
  },
  set_table_customization: (prefix: string): TableHandler => (op, ctx) => {
    const args = argsObject(op.args);
    const t = trackedTable(ctx, args, prefix);
    const configuration = parseTableConfiguration(requireKey(args, 'configuration', ARGS_PATH), `${ARGS_PATH}.configuration`);
    return setTableCustomization(ctx, t, configuration);
  },
  set_table_is_enum: (prefix: string): TableHandler => (op, ctx) => {
    const args = argsObject(op.args);
    const t = trackedTable(ctx, args, prefix);
    return setTableIsEnum(ctx, t, requireBoolean(args, 'is_enum', ARGS_PATH));
  },
  set_gateway_federation_config: (prefix: string): TableHandler => (op, ctx) => {
    const args = argsObject(op.args);
    const t = trackedTable(ctx, args, prefix);
    return setFederationConfig(ctx, t, federationArg(args, ARGS_PATH) ?? null);
  },
};

/**
 * Legacy `track_table`: `version: 2` takes `{table, configuration}`; version 1 takes
 * `{table, is_enum}` or the table name itself (`"author"` or `{schema, name}`).
 */
const legacyTrack: TableHandler = (op, ctx) => {
  if (op.version === 2) return track(ctx, argsObject(op.args), LEGACY_PREFIX);
  if (typeof op.args === 'string') return track(ctx, {}, LEGACY_PREFIX, op.args);
  const args = argsObject(op.args);
  if ('table' in args) return track(ctx, { table: args.table, is_enum: args.is_enum, source: args.source }, LEGACY_PREFIX);
  return track(ctx, {}, LEGACY_PREFIX, args);
};

const legacySetCustomFields: TableHandler = (op, ctx) => {
  const args = argsObject(op.args);
  const t = trackedTable(ctx, args, LEGACY_PREFIX);
  const parsed = parseTableConfiguration(
    { custom_root_fields: args.custom_root_fields, custom_column_names: args.custom_column_names },
    ARGS_PATH,
  );
  return setTableCustomization(ctx, t, customFieldsConfiguration(parsed.custom_root_fields, parsed.custom_column_names ?? {}));
};

/** Legacy `/v1/query` operations, which act on the `default` source unless told otherwise. */
export const legacy: Record<string, TableHandler> = {
  track_table: legacyTrack,
  // The reference's older name for track_table, with the same args.
  add_existing_table_or_view: legacyTrack,
  untrack_table: prefixed.untrack_table(LEGACY_PREFIX),
  set_table_custom_fields: legacySetCustomFields,
  set_table_customization: prefixed.set_table_customization(LEGACY_PREFIX),
  set_table_is_enum: prefixed.set_table_is_enum(LEGACY_PREFIX),
};
