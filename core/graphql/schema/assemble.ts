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
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  type GraphQLArgument,
  type GraphQLNamedType,
} from 'graphql';
import { lazyRootEntry, type RoleSchema, type RootFieldEntry, type SchemaDraft } from '../schema-draft.js';
import { assertValidSchemaOver } from './validate-once.js';
import { LazyRoleSchema, LazyRootType, type LazySchemaParts } from './lazy-schema.js';

export const NO_QUERIES_FIELD = 'no_queries_available';
const NO_QUERIES_DESCRIPTION =
  "There are no queries available to the current role. Either there are no sources or remote schemas configured, or the current role doesn't have the required permissions.";

/** A root entry's identity: what makes its config when it is made lazily (reading the config would make it), else the config. */
const configIdentity = (entry: RootFieldEntry): object => entry.lazy ?? entry.config;

/** A root type built over configs of a read-type group (TypeRegistry.rootConfig), with those configs by field name. */
interface BuiltRoot {
  name: string;
  configs: ReadonlyMap<string, object>;
  type: GraphQLObjectType;
}

/** By the shared read types of a group of roles (SchemaDraft.sharedTypes). */
const builtRoots = new WeakMap<Map<string, GraphQLNamedType>, BuiltRoot[]>();

/**
 * The root type over `entries`, its fields built as they are read (LazyRootType). Roles sharing
 * their read types get the same configs for their read root fields, and most of a role's own
 * schema (beside its write types) was its query and subscription roots: thousands of fields and
 * arguments graphql-js makes per type. So a root whose fields are exactly the configs of one
 * already built for the group is that type.
 */
function rootType(name: string, description: string, entries: ReadonlyMap<string, RootFieldEntry>, shared?: Map<string, GraphQLNamedType>): GraphQLObjectType {
  const built = shared ? builtRoots.get(shared) : undefined;
  for (const b of built ?? []) if (b.name === name && sameConfigs(b.configs, entries)) return b.type;
  const type = new LazyRootType(name, description, entries);
  if (shared) {
    const configs = new Map([...entries].map(([field, entry]) => [field, configIdentity(entry)] as const));
    if (built) built.push({ name, configs, type });
    else builtRoots.set(shared, [{ name, configs, type }]);
  }
  return type;
}

function sameConfigs(configs: ReadonlyMap<string, object>, entries: ReadonlyMap<string, RootFieldEntry>): boolean {
  if (configs.size !== entries.size) return false;
  for (const [field, entry] of entries) if (configs.get(field) !== configIdentity(entry)) return false;
  return true;
}

export function assembleRoleSchema(draft: SchemaDraft, role: string): RoleSchema {
  const query =
    draft.query.size > 0
      ? rootType('query_root', 'query root', draft.query, draft.sharedTypes)
      : new GraphQLObjectType({
          name: 'query_root',
          description: 'query root',
          fields: { [NO_QUERIES_FIELD]: { type: new GraphQLNonNull(GraphQLString), description: NO_QUERIES_DESCRIPTION } },
        });
  const parts: LazySchemaParts = {
    query,
    mutation: draft.mutation.size > 0 ? rootType('mutation_root', 'mutation root', draft.mutation) : null,
    subscription: draft.subscription.size > 0 ? rootType('subscription_root', 'subscription root', draft.subscription, draft.sharedTypes) : null,
    types: draft.types,
  };
  return {
    role,
    schema: new LazyRoleSchema(parts, completeSchema),
    roots: { query: new Map(draft.query), mutation: new Map(draft.mutation), subscription: new Map(draft.subscription) },
  };
}

/**
 * The complete GraphQLSchema over a role's types (lazy-schema.ts builds it when a request needs
 * more than the types it reaches): every thunk runs (the constructor collects the types), and a
 * broken type fails here. Types an earlier schema held passed then (validate-once.ts).
 */
function completeSchema(parts: LazySchemaParts): GraphQLSchema {
  const schema = new GraphQLSchema({ query: parts.query, mutation: parts.mutation, subscription: parts.subscription, types: parts.types });
  const fresh = Object.values(schema.getTypeMap()).filter((type) => !EMPTIES.walked.has(type));
  assertValidSchemaOver(schema, fresh);
  shareEmptyExtensions(schema, fresh);
  return schema;
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

/**
 * The draft's planners under the built schema's field configs; null when the field names differ.
 * Where the planner is the built one's (roles sharing their views share their planners) the
 * built entry is taken as it is, and when every entry is, the built map itself.
 */
function adoptRoot(mine: ReadonlyMap<string, RootFieldEntry>, theirs: ReadonlyMap<string, RootFieldEntry>): ReadonlyMap<string, RootFieldEntry> | null {
  if (mine.size !== theirs.size) return null;
  const out = new Map<string, RootFieldEntry>();
  let same = true;
  for (const [name, entry] of mine) {
    const other = theirs.get(name);
    if (!other || other.planner.kind !== entry.planner.kind) return null;
    if (entry.planner.kind === 'namespace' && other.planner.kind === 'namespace') {
      const fields = adoptRoot(entry.planner.fields, other.planner.fields);
      if (!fields) return null;
      if (fields === other.planner.fields) {
        out.set(name, other);
        continue;
      }
      same = false;
      out.set(name, { config: other.config, planner: { kind: 'namespace', fields: new Map(fields) } });
      continue;
    }
    if (other.planner === entry.planner) {
      out.set(name, other);
      continue;
    }
    same = false;
    out.set(name, other.lazy ? lazyRootEntry(other.lazy, entry.planner) : { config: other.config, planner: entry.planner });
  }
  return same ? theirs : out;
}

interface SharedEmpties {
  /** Null prototype: graphql-js keeps such an `extensions` object as it is instead of copying it. */
  extensions: Readonly<Record<string, never>>;
  /** The arguments of every field that has none (most row and aggregate fields): graphql-js makes an array per field. */
  args: readonly GraphQLArgument[];
  /**
   * Types already walked, and validated: read types shared by many schemas are walked and
   * validated once, not once per schema.
   */
  walked: WeakSet<GraphQLNamedType>;
}

/**
 * One per process, not per module instance: a test process may load this module twice, and a type
 * walked by one instance must not be left with another instance's empty objects.
 */
const EMPTIES_KEY = Symbol.for('svc-graphql-engine.schema.shared-empties');
const EMPTIES = ((globalThis as Record<symbol, SharedEmpties | undefined>)[EMPTIES_KEY] ??= {
  extensions: Object.freeze(Object.create(null) as Record<string, never>),
  args: Object.freeze([]),
  walked: new WeakSet(),
});
const NO_EXTENSIONS = EMPTIES.extensions;

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
 * share one frozen object, and the copies are garbage once the schema is assembled. Fields
 * without arguments share one empty array likewise. A type is walked once: its fields are fixed
 * once its schema is valid, and the walk over a whole schema was 7% of a role schema build.
 */
function shareEmptyExtensions(schema: GraphQLSchema, fresh: readonly GraphQLNamedType[]): void {
  for (const type of fresh) {
    EMPTIES.walked.add(type);
    share(type);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        share(field);
        if (field.args.length === 0) field.args = EMPTIES.args;
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
