/**
 * Whole-metadata operations: export_metadata, replace_metadata, reload_metadata, clear_metadata,
 * get_inconsistent_metadata, drop_inconsistent_metadata, dump_internal_state. They answer on every metadata endpoint
 * (the legacy /v1/query has them too). Disabling this plugin leaves no way to back up or restore
 * metadata, so keep it.
 */
import {
  definePlugin,
  dropInconsistentObjects,
  EngineError,
  exportMetadata,
  inconsistencyDroppers,
  initialMetadata,
  type MetadataOperation,
  type OperationContext,
  type OperationResult,
  parseMetadataDocument,
  registerMetadataOperations,
  type ReloadRequest,
  type SourceMetadata,
  SUCCESS,
} from '../../../core/sdk/index.js';

const PLUGIN_ID = 'metadata/management';

export interface MetadataDefaults {
  defaultSource(): SourceMetadata | null;
}

const argsObject = (op: MetadataOperation, ctx: OperationContext): Record<string, unknown> => {
  const a = op.args ?? {};
  if (typeof a !== 'object' || Array.isArray(a) || a === null) {
    throw new EngineError('parse-failed', 'expected Object for "args"', { path: ctx.path });
  }
  return a as Record<string, unknown>;
};

/** Cron triggers created with `include_in_metadata: false` stay out of exports (and replacements). */
const hiddenCronTrigger = (t: Record<string, unknown>): boolean => t['include_in_metadata'] === false;

/** The key a kind's tables name their schema with in exports (`dataset` for the warehouse kind). */
function tableSchemaKey(ctx: OperationContext, kind: string): string {
  try {
    return ctx.dbKind(kind).tableSchemaKey ?? 'schema';
  } catch {
    // A source of a kind no loaded plugin serves keeps the common form.
    return 'schema';
  }
}

function exportOp(op: MetadataOperation, ctx: OperationContext): OperationResult {
  // The frozen draft: reading the whole document through the draft would make a draft of every entry.
  const draft = ctx.frozenDraft?.() ?? ctx.draft;
  const shown = (draft.cron_triggers ?? []).filter((t) => !hiddenCronTrigger(t));
  const metadata = exportMetadata({ ...draft, cron_triggers: shown }, (kind) => tableSchemaKey(ctx, kind));
  if (op.version === 2) return { body: { resource_version: ctx.cache.resourceVersion, metadata } };
  return { body: metadata };
}

async function replaceOp(op: MetadataOperation, ctx: OperationContext): Promise<OperationResult> {
  const args = argsObject(op, ctx);
  const isV2 = op.version === 2 || (op.version === undefined && 'metadata' in args && !('sources' in args) && !('tables' in args));
  const raw = isV2 ? args['metadata'] : args;
  if (isV2 && raw === undefined) throw new EngineError('parse-failed', 'key "metadata" not found', { path: ctx.path });
  const allow = isV2 && args['allow_inconsistent_metadata'] === true;
  const defaults = ctx.container.resolve<MetadataDefaults>('metadataDefaults');
  const hidden = (ctx.draft.cron_triggers ?? []).filter(hiddenCronTrigger);
  ctx.draft = parseMetadataDocument(raw, isV2 ? `${ctx.path}.metadata` : ctx.path, () => defaults.defaultSource());
  keepHiddenCronTriggers(ctx, hidden);
  ctx.markChanged();
  // A replacement is judged on its own: inconsistencies the old metadata had count too.
  const preview = await ctx.rebuildPreview();
  if (preview.inconsistentObjects.length === 0) return SUCCESS;
  if (!allow) {
    throw new EngineError('unexpected', 'cannot continue due to inconsistent metadata', {
      status: 400,
      path: ctx.path,
      internal: preview.inconsistentObjects,
    });
  }
  ctx.allowInconsistency();
  return { body: { is_consistent: false, inconsistent_objects: preview.inconsistentObjects } };
}

/** As the reference: replace_metadata cannot touch cron triggers kept out of the metadata. */
function keepHiddenCronTriggers(ctx: OperationContext, hidden: Record<string, unknown>[]): void {
  if (hidden.length === 0) return;
  const given = ctx.draft.cron_triggers ?? [];
  for (const t of given) {
    if (hidden.some((h) => h['name'] === t['name'])) {
      throw new EngineError('already-exists', `cron trigger with name "${String(t['name'])}" already exists as a cron trigger with "included_in_metadata" as false`, { path: ctx.path });
    }
  }
  ctx.draft.cron_triggers = [...given, ...hidden];
}

function reloadFlag(value: unknown, name: string, fallback: boolean, path: string): boolean | string[] {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'boolean') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  throw new EngineError('parse-failed', `expected Bool or an array of names for "${name}"`, { path: `${path}.${name}` });
}

async function reloadOp(op: MetadataOperation, ctx: OperationContext): Promise<OperationResult> {
  const args = argsObject(op, ctx);
  const reload: ReloadRequest = {
    sources: reloadFlag(args['reload_sources'], 'reload_sources', true, ctx.path),
    remoteSchemas: reloadFlag(args['reload_remote_schemas'], 'reload_remote_schemas', true, ctx.path),
    recreateEventTriggers: reloadFlag(args['recreate_event_triggers'], 'recreate_event_triggers', false, ctx.path),
  };
  ctx.requestReload(reload);
  const preview = await ctx.rebuildPreview();
  // As the reference: a reload never refuses what the databases now hold (a bulk's run_sql may
  // have made an enum table invalid); later operations of the request are judged against it.
  ctx.acceptInconsistencies?.(preview.inconsistentObjects);
  const consistent = preview.inconsistentObjects.length === 0;
  return {
    body: consistent
      ? { is_consistent: true, message: 'success' }
      : { is_consistent: false, message: 'success', inconsistent_objects: preview.inconsistentObjects },
  };
}

function clearOp(_op: MetadataOperation, ctx: OperationContext): OperationResult {
  const defaults = ctx.container.resolve<MetadataDefaults>('metadataDefaults');
  ctx.draft = initialMetadata(defaults.defaultSource());
  ctx.markChanged();
  return SUCCESS;
}

function getInconsistentOp(_op: MetadataOperation, ctx: OperationContext): OperationResult {
  const objects = ctx.cache.inconsistentObjects;
  return { body: { is_consistent: objects.length === 0, inconsistent_objects: objects } };
}

function dropInconsistentOp(_op: MetadataOperation, ctx: OperationContext): OperationResult {
  if (ctx.cache.inconsistentObjects.length > 0) {
    const droppers = inconsistencyDroppers(ctx.container);
    for (const o of ctx.cache.inconsistentObjects) droppers.get(o.type)?.(ctx.draft, o);
    dropInconsistentObjects(ctx.draft, ctx.cache.inconsistentObjects.filter((o) => !droppers.has(o.type)));
    ctx.markChanged();
    ctx.allowInconsistency();
  }
  return SUCCESS;
}

/**
 * `dump_internal_state`: the resolved schema cache, for debugging (the reference dumps its own
 * schema cache; the shape is ours, not a contract): per source the tracked tables with their
 * columns, relationships, computed fields and permission roles, the tracked functions, the roles
 * and the inconsistent objects.
 */
function dumpInternalStateOp(_op: MetadataOperation, ctx: OperationContext): OperationResult {
  const cache = ctx.cache;
  const sources: Record<string, unknown> = {};
  for (const [name, s] of cache.sources) {
    sources[name] = {
      kind: s.kind,
      tables: [...s.tables.values()].map((t) => ({
        table: t.table,
        type_name: t.typeName,
        identifier: t.identifier,
        is_enum: t.isEnum,
        primary_key: t.primaryKey,
        root_fields: t.rootFields,
        columns: t.columns.map((c) => ({ name: c.name, graphql_name: c.graphqlName, type: c.type, nullable: c.nullable })),
        relationships: [...t.relationships.values()].map((r) => ({ name: r.name, kind: r.kind, target: r.target, mapping: r.mapping })),
        computed_fields: [...(t.computedFields?.values() ?? [])].map((c) => ({ name: c.name, function: c.function, returns: c.returns })),
        permissions: Object.fromEntries(Object.entries(t.permissions).map(([type, byRole]) => [type, [...byRole.keys()].sort()])),
      })),
      functions: [...(s.functions?.values() ?? [])].map((f) => ({
        function: f.function,
        root_fields: f.rootFields,
        return_table: f.returnTable,
        exposed_as: f.exposedAs,
      })),
    };
  }
  return {
    body: {
      version: cache.version,
      resource_version: cache.resourceVersion,
      roles: [...cache.roles].sort(),
      sources,
      inconsistent_objects: cache.inconsistentObjects,
    },
  };
}

const HANDLERS: Record<string, (op: MetadataOperation, ctx: OperationContext) => OperationResult | Promise<OperationResult>> = {
  export_metadata: exportOp,
  replace_metadata: replaceOp,
  reload_metadata: reloadOp,
  clear_metadata: clearOp,
  get_inconsistent_metadata: getInconsistentOp,
  drop_inconsistent_metadata: dropInconsistentOp,
  dump_internal_state: dumpInternalStateOp,
};

export default definePlugin({
  name: 'management',
  kind: 'metadata',
  register(_container, hooks) {
    registerMetadataOperations(hooks, PLUGIN_ID, { unprefixed: HANDLERS, endpoints: { unprefixed: ['metadata', 'query', 'schema'] } });
  },
});
