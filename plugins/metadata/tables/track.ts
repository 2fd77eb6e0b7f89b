/**
 * Tracking and untracking tables. Tracking checks what the reference checks before rebuilding
 * (not already tracked, no function of that name, no root field of that name, the table exists,
 * GraphQL-compliant names) and then rebuilds to catch the rest (enum shape, name clashes).
 */
import {
  ARGS_PATH,
  type ArgsObject,
  assertConsistent,
  catalogIfAvailable,
  type CatalogTable,
  defaultIdentifier,
  dependencyError,
  EngineError,
  findTable,
  isGraphQLName,
  namingConventionOf,
  rootFieldReservations,
  notGraphQLName,
  type OperationContext,
  type OperationResult,
  optionalBoolean,
  type QualifiedTable,
  qualifiedTableName,
  quotedTable,
  removeDependents,
  rootFieldNames,
  sameTable,
  type SourceMetadata,
  SUCCESS,
  type TableConfiguration,
  tableDependents,
  tableInconsistency,
  type TableMetadata,
  tableObjectName,
  type TableTarget,
} from '../../../core/sdk/index.js';
import { setFederation } from './federation.js';
import { isEmptyConfiguration } from './table-config.js';

export interface TrackRequest extends TableTarget {
  configuration: TableConfiguration;
  isEnum: boolean;
  /** undefined: not given. */
  federation: { enable: string } | null | undefined;
}

/** Root query fields of the live schema, as the reference's introspection-based check sees them. */
/** Top-level query root field names of the other sources (a namespaced source contributes its namespace). */
function otherSourcesRootFields(ctx: OperationContext, except: string): Set<string> {
  const names = new Set<string>();
  for (const source of ctx.cache.sources.values()) {
    if (source.name === except) continue;
    const namespace = source.customization.root_fields?.namespace;
    if (namespace) {
      names.add(namespace);
      continue;
    }
    for (const t of source.tables.values()) {
      names.add(t.rootFields.select);
      names.add(t.rootFields.select_aggregate);
      if (t.primaryKey?.length) names.add(t.rootFields.select_by_pk);
    }
  }
  return names;
}

/**
 * The names this table would add at the top of query_root: none of its own when its source has
 * a namespace (the namespace field is checked when the source is added), else its select root
 * fields. Clashes inside one source are reported by the resolver.
 */
function newTopLevelNames(source: SourceMetadata, table: QualifiedTable, configuration: TableConfiguration): string[] {
  if (source.customization?.root_fields?.namespace) return [];
  const identifier = configuration.custom_name || configuration.identifier || defaultIdentifier(table);
  const names = rootFieldNames(identifier, configuration.custom_root_fields, source.customization, namingConventionOf(source.customization));
  return [names.select, names.select_by_pk, names.select_aggregate];
}

function checkNames(table: QualifiedTable, configuration: TableConfiguration, entry: CatalogTable): void {
  const identifier = configuration.custom_name || configuration.identifier || defaultIdentifier(table);
  if (!isGraphQLName(identifier)) {
    throw new EngineError('validation-failed', notGraphQLName(qualifiedTableName(table), identifier), { path: ARGS_PATH });
  }
  for (const c of [entry.primaryKey, ...entry.uniqueConstraints]) {
    if (c && !isGraphQLName(c.name)) {
      throw new EngineError(
        'validation-failed',
        `cannot include "${c.name}" in the GraphQL schema because it is not a valid GraphQL identifier`,
        { path: ARGS_PATH },
      );
    }
  }
}

export async function trackTable(ctx: OperationContext, req: TrackRequest): Promise<OperationResult> {
  const { source, table } = req;
  if (findTable(source, table)) {
    throw new EngineError('already-tracked', `view/table already tracked: ${quotedTable(table)}`, { path: ARGS_PATH });
  }
  if ((source.functions ?? []).some((f) => sameTable(f.function, table))) {
    throw new EngineError('not-supported', `function with name ${quotedTable(table)} already exists`, { path: ARGS_PATH });
  }
  const taken = otherSourcesRootFields(ctx, source.name);
  for (const reserved of rootFieldReservations(ctx.container).values()) for (const name of reserved(ctx.cache)) taken.add(name);
  const node = newTopLevelNames(source, table, req.configuration).find((n) => taken.has(n));
  if (node) {
    throw new EngineError('remote-schema-conflicts', `node ${node} already exists in current graphql schema`, { path: ARGS_PATH });
  }
  const catalog = await ctx.catalogFor(source.name);
  const entry = catalog.tables.find((t) => t.schema === table.schema && t.name === table.name);
  if (!entry) {
    const inconsistent = tableInconsistency(source.name, table, `no such table/view exists in source: ${quotedTable(table)}`);
    throw new EngineError('invalid-configuration', inconsistent.reason, { path: ARGS_PATH, internal: [inconsistent] });
  }
  checkNames(table, req.configuration, entry);
  const meta: TableMetadata = { table };
  if (!isEmptyConfiguration(req.configuration)) meta.configuration = req.configuration;
  if (req.isEnum) meta.is_enum = true;
  if (req.federation) setFederation(meta, req.federation);
  source.tables.push(meta);
  ctx.markChanged();
  await assertConsistent(ctx, [tableObjectName(source.name, table)]);
  return SUCCESS;
}

export async function untrackTable(ctx: OperationContext, target: TableTarget, args: ArgsObject): Promise<OperationResult> {
  const { source, table } = target;
  const cascade = optionalBoolean(args, 'cascade', ARGS_PATH, false);
  if (!findTable(source, table)) {
    throw new EngineError('already-untracked', `view/table already untracked: ${quotedTable(table)}`, { path: ARGS_PATH });
  }
  const catalog = await catalogIfAvailable(ctx, source.name);
  const dependents = tableDependents(ctx.draft, source, table, catalog);
  if (dependents.length > 0 && !cascade) throw dependencyError(dependents, ARGS_PATH);
  removeDependents(ctx.draft, dependents);
  source.tables = source.tables.filter((t) => !sameTable(t.table, table));
  ctx.markChanged();
  return SUCCESS;
}
