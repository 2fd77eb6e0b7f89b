/**
 * Tracked functions of one source, resolved against its catalog with the reference engine's
 * checks and messages (`buildFunctionInfo`): one function of that name, no VARIADIC argument, a
 * tracked table's row type as the result, GraphQL-compliant names, a `json` session argument.
 * Each failure is an inconsistent object `function <name> in source <source>`; the rest serves.
 */
import type { CatalogFunction } from '../../db/catalog.js';
import { tableKey } from '../../db/catalog.js';
import type { FunctionConfiguration, FunctionMetadata, InconsistentObject, QualifiedFunction, SourceCustomization } from '../../metadata/types.js';
import { qualifiedTableName } from '../../metadata/types.js';
import type { ResolvedFunction, ResolvedTable } from '../model.js';
import { functionArgs, quotedFunction, reasonMessage, singleFunction } from './function-common.js';
import { isGraphQLName } from './graphql-name.js';
import { quote, REASON_PREFIX, ResolveError } from './inconsistency.js';
import { notGraphQLName } from './table.js';
import { customRootFieldName, tableTypeName, toCamelCase, withAffixes, type NamingConvention } from './naming.js';

export const functionObjectName = (source: string, fn: QualifiedFunction): string =>
  `function ${qualifiedTableName(fn)} in source ${source}`;

export function functionInconsistency(source: string, fn: QualifiedFunction, message: string): InconsistentObject {
  return {
    type: 'function',
    name: functionObjectName(source, fn),
    definition: { schema: fn.schema, name: fn.name },
    reason: REASON_PREFIX + message,
  };
}

/** The function's own name as GraphQL names start from it (schema-prefixed outside `public`). */
export function functionGivenName(fn: QualifiedFunction): string {
  return fn.schema === 'public' ? fn.name : `${fn.schema}_${fn.name}`;
}

interface Env {
  source: string;
  customization: SourceCustomization;
  naming: NamingConvention;
  functions: ReadonlyMap<string, CatalogFunction[]>;
  tables: ReadonlyMap<string, ResolvedTable>;
}

export function resolveFunctions(env: Env, metas: readonly FunctionMetadata[]): { functions: Map<string, ResolvedFunction>; inconsistencies: InconsistentObject[] } {
  const functions = new Map<string, ResolvedFunction>();
  const inconsistencies: InconsistentObject[] = [];
  // Every table's root fields, only when some function may clash with them (most sources track
  // none: 1,000 tables' names per metadata operation for nothing).
  let taken: Map<string, string> | undefined;
  for (const meta of metas) {
    const key = tableKey(meta.function);
    const fail = (message: string) => inconsistencies.push(functionInconsistency(env.source, meta.function, message));
    if (functions.has(key)) {
      fail(`duplication definition for function ${quotedFunction(meta.function)}`);
      continue;
    }
    let resolved: ResolvedFunction;
    try {
      resolved = resolveFunction(env, meta);
    } catch (e) {
      if (!(e instanceof ResolveError)) throw e;
      fail(`in function ${quotedFunction(meta.function)}: ${e.message}`);
      continue;
    }
    // The function depends on its table: an untracked one makes it inconsistent, unprefixed.
    if (!env.tables.has(resolved.returnTable)) {
      fail(`table ${quote(qualifiedTableName(resolved.catalog.returnsTable!))} is not tracked`);
      continue;
    }
    const clash = rootFieldClash(env.source, resolved, (taken ??= tableRootFieldOwners(env)));
    if (clash) {
      fail(clash);
      continue;
    }
    functions.set(key, resolved);
  }
  return { functions, inconsistencies };
}

function resolveFunction(env: Env, meta: FunctionMetadata): ResolvedFunction {
  const fn = meta.function;
  const catalog = singleFunction(env.functions.get(tableKey(fn)), fn);
  const config = meta.configuration ?? {};
  const reasons: string[] = [];
  const given = functionGivenName(fn);
  if (!isGraphQLName(given)) reasons.push('function name is not a legal GraphQL identifier');
  if (catalog.hasVariadic) reasons.push('function with "VARIADIC" parameters are not supported');
  const composite = catalog.returnTypeKind ? catalog.returnTypeKind === 'composite' : catalog.returnsTable !== null;
  if (!composite) reasons.push('the function does not return a "COMPOSITE" type');
  if (!catalog.returnsTable) reasons.push('the function does not return a table');
  if (catalog.volatility !== 'volatile' && config.exposed_as === 'mutation') {
    reasons.push(
      'the function was requested to be exposed as a mutation, but is not marked VOLATILE. ' +
        'Maybe the function was given the wrong volatility when it was defined?',
    );
  }
  const badNames = catalog.args.flatMap((a) => (a.name && !isGraphQLName(a.name) ? [a.name] : []));
  if (badNames.length > 0) reasons.push(`the function arguments ${badNames.join(',')} are not in compliance with GraphQL spec`);

  const sessionIndex = config.session_argument === undefined ? -1 : catalog.args.findIndex((a) => a.name === config.session_argument);
  const args = functionArgs(catalog, new Set(sessionIndex >= 0 ? [sessionIndex] : []));
  if (config.session_argument !== undefined) {
    const session = args[sessionIndex];
    if (!session) {
      reasons.push(`given session argument ${quote(config.session_argument)} not the input argument of the function`);
    } else if (session.type !== 'json') {
      // Only `json`, as the reference: computed fields also take `jsonb`, tracked functions do not.
      reasons.push(`given session argument ${quote(config.session_argument)} is not of type json`);
    } else {
      session.role = 'session';
    }
  }
  if (reasons.length > 0) {
    throw new ResolveError(`the function ${quotedFunction(fn)} cannot be tracked ${reasonMessage(reasons)}`, 'not-supported');
  }

  const rootFields = rootFieldNamesOf(env, given, config);
  const argsTypeName = tableTypeName(`${config.custom_name ?? given}_args`, env.customization, env.naming);
  // Names from replaced metadata were never parsed: one that is not a GraphQL name must not reach the schema.
  for (const n of [rootFields.function, rootFields.function_aggregate, argsTypeName]) {
    if (!isGraphQLName(n)) throw new ResolveError(notGraphQLName(n, n), 'validation-failed');
  }
  return {
    source: env.source,
    function: fn,
    key: tableKey(fn),
    catalog,
    metadata: meta,
    volatility: catalog.volatility,
    exposedAs: config.exposed_as ?? (catalog.volatility === 'volatile' ? 'mutation' : 'query'),
    returnTable: tableKey(catalog.returnsTable!),
    returnsSet: catalog.returnsSet,
    args,
    rootFields,
    argsTypeName,
    graphqlName: config.custom_name ?? given,
    description: meta.comment ?? catalog.description ?? null,
    permissions: new Set((meta.permissions ?? []).map((p) => p.role)),
  };
}

/**
 * A custom root field name wins, then `custom_name` (verbatim), then the function's name in the
 * naming convention; the source's root-field prefix/suffix applies to all.
 */
function rootFieldNamesOf(env: Env, given: string, config: FunctionConfiguration): ResolvedFunction['rootFields'] {
  const prefix = env.customization.root_fields?.prefix;
  const suffix = env.customization.root_fields?.suffix;
  const custom = config.custom_name;
  const name = (customName: unknown, fromCustom: string | undefined, generated: string): string => {
    const base = customRootFieldName(customName) ?? fromCustom ?? (env.naming === 'graphql-default' ? toCamelCase(generated) : generated);
    return withAffixes(base, prefix, suffix, env.naming);
  };
  const roots = config.custom_root_fields;
  return {
    function: name(roots?.function, custom, given),
    function_aggregate: name(roots?.function_aggregate, custom === undefined ? undefined : `${custom}_aggregate`, `${given}_aggregate`),
  };
}

/** Root fields the source's tables generate, by root type, with their owner for messages. */
function tableRootFieldOwners(env: Env): Map<string, string> {
  const owners = new Map<string, string>();
  for (const t of env.tables.values()) {
    const owner = `table ${qualifiedTableName(t.table)} in source ${env.source}`;
    const f = t.rootFields;
    for (const n of [f.select, f.select_aggregate, f.select_by_pk]) owners.set(`query:${n}`, owner);
    for (const n of [f.insert, f.insert_one, f.update, f.update_by_pk, f.update_many, f.delete, f.delete_by_pk]) owners.set(`mutation:${n}`, owner);
  }
  return owners;
}

/** The reference's message for two objects generating one root field; the function loses. */
function rootFieldClash(source: string, f: ResolvedFunction, owners: Map<string, string>): string | null {
  const root = f.exposedAs === 'query' ? 'query' : 'mutation';
  const names = root === 'query' ? [f.rootFields.function, f.rootFields.function_aggregate] : [f.rootFields.function];
  const me = functionObjectName(source, f.function);
  for (const name of names) {
    const owner = owners.get(`${root}:${name}`);
    if (owner) {
      return `Encountered conflicting definitions in the selection set for '${root}_root' for field '${name}' defined in [${owner}, ${me}]. Fields must not be defined more than once across all sources.`;
    }
  }
  for (const name of names) owners.set(`${root}:${name}`, me);
  return null;
}

