/**
 * One role schema's named types, each created once. graphql-js rejects a schema holding two
 * different type objects with the same name, and several sources (or tables) ask for the same
 * shared types (`Int_comparison_exp`, `order_by`), so every generated type goes through here.
 * Types are made lazily (fields are thunks), so only the types reachable from a root field are
 * ever built, and GraphQLSchema only emits the reachable ones.
 */
import type { GraphQLFieldConfig, GraphQLFieldConfigMap, GraphQLInputFieldConfigMap, GraphQLNamedType } from 'graphql';
import { RootFieldConfig, type SchemaDraft } from '../schema-draft.js';

export class TypeRegistry {
  private readonly own = new Map<string, GraphQLNamedType>();
  private readonly shared: Map<string, GraphQLNamedType>;
  /** `<rel>_aggregate` filters in `<t>_bool_exp`; off with the `hide_aggregation_predicates` experimental feature. */
  aggregatePredicates = true;

  /** `shared`: the named types of roles whose select permissions shape their types alike. */
  constructor(shared?: Map<string, GraphQLNamedType>) {
    this.shared = shared ?? this.own;
  }

  /** The type named `name`, made by `make` the first time it is asked for. */
  get<T extends GraphQLNamedType>(name: string, make: () => T): T {
    return made(this.shared, name, make);
  }

  /**
   * As `get`, for the types the role's write permissions shape (insert, update and delete types):
   * these stay the schema's own even when the read types are shared with other roles.
   */
  local<T extends GraphQLNamedType>(name: string, make: () => T): T {
    return made(this.own, name, make);
  }

  /**
   * The config of the read root field `name` of a source's table (made when first read), one
   * per group of roles sharing their read types: the configs are then the same objects in each of
   * their drafts, and assembly takes a root type already built over exactly these (assemble.ts)
   * instead of building every root field and argument again. A read root field's config is made of read
   * types and of what the read key covers (visible columns, aggregations, root field lists).
   */
  rootConfig(source: string, table: string, name: string, make: () => GraphQLFieldConfig<unknown, unknown>): RootFieldConfig {
    if (this.shared === this.own) return new RootFieldConfig(make);
    const key = `${source}\u0000${table}\u0000${name}`;
    let configs = sharedConfigs.get(this.shared);
    if (!configs) sharedConfigs.set(this.shared, (configs = new Map()));
    let config = configs.get(key);
    if (!config) configs.set(key, (config = new RootFieldConfig(make)));
    return config;
  }
}

const sharedConfigs = new WeakMap<Map<string, GraphQLNamedType>, Map<string, RootFieldConfig>>();

function made<T extends GraphQLNamedType>(types: Map<string, GraphQLNamedType>, name: string, make: () => T): T {
  const existing = types.get(name);
  if (existing) return existing as T;
  const type = make();
  types.set(name, type);
  return type;
}

// Keyed by the draft: every tap of one role's schema build passes the same draft along, while a
// new role build starts from a new draft.
const registries = new WeakMap<SchemaDraft, TypeRegistry>();

export function registryFor(draft: SchemaDraft): TypeRegistry {
  let r = registries.get(draft);
  if (!r) {
    r = new TypeRegistry(draft.sharedTypes);
    registries.set(draft, r);
  }
  return r;
}

/** Fields in name order: introspection then lists them the way the reference engine does. */
export function sortedFields<T extends GraphQLFieldConfigMap<unknown, unknown> | GraphQLInputFieldConfigMap>(fields: T): T {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(fields).sort()) out[k] = fields[k];
  return out as T;
}
