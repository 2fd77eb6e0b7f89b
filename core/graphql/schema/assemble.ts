/**
 * A draft → the role's GraphQLSchema. `query_root` always exists (with the reference engine's
 * `no_queries_available` placeholder when the role can query nothing); `mutation_root` and
 * `subscription_root` only when they have fields.
 */
import {
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  assertValidSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  type GraphQLFieldConfigMap,
} from 'graphql';
import type { RoleSchema, RootFieldEntry, SchemaDraft } from '../schema-draft.js';

export const NO_QUERIES_FIELD = 'no_queries_available';
const NO_QUERIES_DESCRIPTION =
  "There are no queries available to the current role. Either there are no sources or remote schemas configured, or the current role doesn't have the required permissions.";

export function rootFieldMap(entries: ReadonlyMap<string, RootFieldEntry>): GraphQLFieldConfigMap<unknown, unknown> {
  const out: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const name of [...entries.keys()].sort()) out[name] = entries.get(name)!.config;
  return out;
}

function rootType(name: string, description: string, entries: ReadonlyMap<string, RootFieldEntry>): GraphQLObjectType {
  return new GraphQLObjectType({ name, description, fields: () => rootFieldMap(entries) });
}

export function assembleRoleSchema(draft: SchemaDraft, role: string): RoleSchema {
  const query =
    draft.query.size > 0
      ? rootType('query_root', 'query root', draft.query)
      : new GraphQLObjectType({
          name: 'query_root',
          description: 'query root',
          fields: { [NO_QUERIES_FIELD]: { type: new GraphQLNonNull(GraphQLString), description: NO_QUERIES_DESCRIPTION } },
        });
  const schema = new GraphQLSchema({
    query,
    mutation: draft.mutation.size > 0 ? rootType('mutation_root', 'mutation root', draft.mutation) : null,
    subscription: draft.subscription.size > 0 ? rootType('subscription_root', 'subscription root', draft.subscription) : null,
    types: draft.types,
  });
  // Build every thunk now, so a broken type fails the schema build rather than a request.
  assertValidSchema(schema);
  shareEmptyExtensions(schema);
  return {
    role,
    schema,
    roots: { query: new Map(draft.query), mutation: new Map(draft.mutation), subscription: new Map(draft.subscription) },
  };
}

/**
 * A role whose permissions shape its types like an already built role's (core/schema-cache/
 * role-shape.ts) takes that role's GraphQLSchema with its OWN planners: every planner reads the
 * role's table views (filters, presets, limits, checks), never the schema's types, so sharing
 * the types shares nothing that is the role's own. The root field names must match exactly (a
 * cheap check that the shape key saw everything); null when they do not, and then the role
 * gets a schema of its own. The shared configs replace the draft's, whose types are then garbage.
 */
export function shareRoleSchema(draft: SchemaDraft, role: string, built: RoleSchema): RoleSchema | null {
  if (draft.types.length > 0) return null;
  const query = adoptRoot(draft.query, built.roots.query);
  const mutation = adoptRoot(draft.mutation, built.roots.mutation);
  const subscription = adoptRoot(draft.subscription, built.roots.subscription);
  if (!query || !mutation || !subscription) return null;
  return { role, schema: built.schema, roots: { query, mutation, subscription } };
}

/** The draft's planners under the built schema's field configs; null when the field names differ. */
function adoptRoot(mine: ReadonlyMap<string, RootFieldEntry>, theirs: ReadonlyMap<string, RootFieldEntry>): Map<string, RootFieldEntry> | null {
  if (mine.size !== theirs.size) return null;
  const out = new Map<string, RootFieldEntry>();
  for (const [name, entry] of mine) {
    const other = theirs.get(name);
    if (!other || other.planner.kind !== entry.planner.kind) return null;
    if (entry.planner.kind === 'namespace' && other.planner.kind === 'namespace') {
      const fields = adoptRoot(entry.planner.fields, other.planner.fields);
      if (!fields) return null;
      out.set(name, { config: other.config, planner: { kind: 'namespace', fields } });
      continue;
    }
    out.set(name, { config: other.config, planner: entry.planner });
  }
  return out;
}

/** Null prototype: graphql-js keeps such an `extensions` object as it is instead of copying it. */
const NO_EXTENSIONS: Readonly<Record<string, never>> = Object.freeze(Object.create(null) as Record<string, never>);

interface HasExtensions {
  extensions: Readonly<Record<string, unknown>>;
}

function share(element: HasExtensions): void {
  if (element.extensions !== NO_EXTENSIONS && Object.keys(element.extensions).length === 0) element.extensions = NO_EXTENSIONS;
}

/**
 * graphql-js gives every type, field, argument and enum value an `extensions` object of its own,
 * a dictionary-mode object of its own, when none is passed in. A role's schema over 1,000 tables
 * has hundreds of thousands of them, about half of its heap; the empty ones (all of ours) now
 * share one frozen object, and the copies are garbage once the schema is assembled.
 */
function shareEmptyExtensions(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    share(type);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        share(field);
        for (const arg of field.args) share(arg);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) share(field);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) share(value);
    }
  }
  for (const directive of schema.getDirectives()) {
    share(directive);
    for (const arg of directive.args) share(arg);
  }
}
