/**
 * Introspection control: `set_graphql_schema_introspection_options {disabled_for_roles}` stores
 * `graphql_schema_introspection` (the reference's metadata key); for a listed role `__schema` and
 * `__type` do not exist, so an operation selecting them at its root is refused as the reference
 * refuses any unknown field (`__typename` still works). Taps `onMetadataOperation` for the
 * operation, `onRequestLimit` to enforce it (in the executor, so every transport is covered) and
 * `onSchemaCacheBuild` to report stored options that do not parse. Provides the
 * `introspection-control` feature.
 */
import { Kind, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import {
  ARGS_PATH,
  definePlugin,
  EngineError,
  expectObject,
  inconsistencyDroppers,
  jsonTypeName,
  type LimitedOperation,
  parseFailed,
  perSnapshot,
  type SchemaCache,
  SUCCESS,
  whenActive,
} from '../../../core/sdk/index.js';
import { tapPlainOperations, type PlainHandler } from '../query-collections/collections.js';

const PLUGIN_ID = 'metadata/introspection';

function parseOptions(value: unknown, path: string): string[] {
  if (value === undefined || value === null) return [];
  const o = expectObject(value, path);
  const roles = o['disabled_for_roles'] ?? [];
  if (!Array.isArray(roles) || !roles.every((r) => typeof r === 'string')) {
    throw parseFailed(`expected Array of role names, but encountered ${jsonTypeName(roles)}`, `${path}.disabled_for_roles`);
  }
  for (const key of Object.keys(o)) if (key !== 'disabled_for_roles') throw parseFailed(`unexpected key "${key}"`, `${path}.${key}`);
  return [...new Set(roles as string[])];
}

const disabledRoles = perSnapshot((cache: SchemaCache): { roles: ReadonlySet<string>; problem?: string } => {
  try {
    return { roles: new Set(parseOptions(cache.metadata.graphql_schema_introspection, '$.graphql_schema_introspection')) };
  } catch (e) {
    return { roles: new Set(), problem: (e as Error).message };
  }
});

/** The first introspection field selected at the operation's root, through fragments. */
function rootIntrospectionField(definition: OperationDefinitionNode, fragments: Readonly<Record<string, FragmentDefinitionNode>>): string | undefined {
  const seen = new Set<string>();
  const find = (set: SelectionSetNode): string | undefined => {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        if (s.name.value === '__schema' || s.name.value === '__type') return s.name.value;
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        const found = find(s.selectionSet);
        if (found) return found;
      } else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        const fragment = fragments[s.name.value];
        const found = fragment ? find(fragment.selectionSet) : undefined;
        if (found) return found;
      }
    }
    return undefined;
  };
  return find(definition.selectionSet);
}

const introspectionOf = new WeakMap<OperationDefinitionNode, string | null>();
function introspectionField(operation: LimitedOperation): string | null {
  let field = introspectionOf.get(operation.definition);
  if (field === undefined) {
    field = rootIntrospectionField(operation.definition, operation.fragments) ?? null;
    introspectionOf.set(operation.definition, field);
  }
  return field;
}

const set: PlainHandler = (ctx, args) => {
  const roles = parseOptions(args, ARGS_PATH);
  if (roles.length === 0) delete ctx.draft.graphql_schema_introspection;
  else ctx.draft.graphql_schema_introspection = { disabled_for_roles: roles };
  ctx.markChanged();
  return SUCCESS;
};

export default definePlugin({
  name: 'introspection',
  kind: 'metadata',
  provides: ['introspection-control'],
  register(container, hooks) {
    tapPlainOperations(hooks, PLUGIN_ID, { set_graphql_schema_introspection_options: set }, ['metadata']);
    inconsistencyDroppers(container).set('graphql_schema_introspection', (draft) => {
      delete draft.graphql_schema_introspection;
    });
    hooks.onSchemaCacheBuild.tap(PLUGIN_ID, (build) => {
      const problem = disabledRoles(build.cache).problem;
      if (problem) {
        build.addInconsistency({
          type: 'graphql_schema_introspection',
          name: 'graphql_schema_introspection',
          definition: build.cache.metadata.graphql_schema_introspection,
          reason: `Inconsistent object: ${problem}`,
        });
      }
    });
    whenActive(container, PLUGIN_ID, (cache) => disabledRoles(cache).roles.size > 0);
    hooks.onRequestLimit.tap(PLUGIN_ID, (ctx) => {
      if (!disabledRoles(ctx.cache).roles.has(ctx.session.role)) return;
      const field = introspectionField(ctx.operation);
      if (field === null) return;
      const root = ctx.operation.kind === 'mutation' ? 'mutation_root' : ctx.operation.kind === 'subscription' ? 'subscription_root' : 'query_root';
      throw new EngineError('validation-failed', `field '${field}' not found in type: '${root}'`, { path: `$.selectionSet.${field}` });
    });
  },
});
