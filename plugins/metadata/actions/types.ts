/**
 * The GraphQL types of custom types, for one role's schema: built-in scalars, database and custom
 * scalars (pass-through), enums, input objects, and output objects whose relationship fields point
 * at the tables the role may select (`[t!]!` with the select arguments for array relationships,
 * a nullable `t` for object ones). Every named type goes through the draft's type registry, so
 * tables and actions share one type object per name.
 */
import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  Kind,
  type GraphQLFieldConfigMap,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLScalarType,
  type TypeNode,
} from 'graphql';
import {
  buildTableViews,
  namingOf,
  objectType,
  scalarType,
  selectArgs,
  tableKey,
  type SchemaCache,
  type TableView,
  type TypeRegistry,
} from '../../../core/sdk/index.js';
import type { ResolvedCustomTypes, ResolvedObjectRelationship } from '../custom-types/resolve.js';

const BUILT_IN: Readonly<Record<string, GraphQLScalarType>> = {
  Int: GraphQLInt,
  Float: GraphQLFloat,
  String: GraphQLString,
  Boolean: GraphQLBoolean,
  ID: GraphQLID,
};

/** The types of one role schema's custom types, with the role's table views for relationships. */
export class CustomTypeBuilder {
  private readonly views = new Map<string, Map<string, TableView>>();

  constructor(
    readonly registry: TypeRegistry,
    private readonly types: ResolvedCustomTypes,
    private readonly cache: SchemaCache,
    private readonly role: string,
  ) {}

  /** The role's view of a relationship's target table, or null when it may not select it. */
  targetView(rel: ResolvedObjectRelationship): TableView | null {
    let views = this.views.get(rel.source);
    if (!views) {
      const source = this.cache.sources.get(rel.source);
      views = source ? buildTableViews(source, this.role, namingOf(source.customization)) : new Map();
      this.views.set(rel.source, views);
    }
    return views.get(tableKey(rel.table.table)) ?? null;
  }

  private named(name: string): GraphQLNamedType {
    const builtIn = BUILT_IN[name];
    if (builtIn) return builtIn;
    const e = this.types.enums.get(name);
    if (e) {
      return this.registry.get(name, () =>
        new GraphQLEnumType({
          name,
          ...(e.description !== undefined ? { description: e.description } : {}),
          values: Object.fromEntries(
            e.values.map((v) => [v.value, { value: v.value, ...(v.description !== undefined ? { description: v.description } : {}), ...(v.is_deprecated ? { deprecationReason: 'No longer supported' } : {}) }]),
          ),
        }),
      );
    }
    const input = this.types.inputObjects.get(name);
    if (input) {
      return this.registry.get(name, () =>
        new GraphQLInputObjectType({
          name,
          ...(input.description !== undefined ? { description: input.description } : {}),
          fields: () => Object.fromEntries(input.fields.map((f) => [f.name, { type: this.input(f.type), ...(f.description !== undefined ? { description: f.description } : {}) }])),
        }),
      );
    }
    const object = this.types.objects.get(name);
    if (object) {
      return this.registry.get(name, () =>
        new GraphQLObjectType({
          name,
          ...(object.description !== undefined ? { description: object.description } : {}),
          fields: () => {
            const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
            for (const f of object.fields) fields[f.name] = { type: this.output(f.type), ...(f.description !== undefined ? { description: f.description } : {}) };
            for (const rel of object.relationships) {
              const view = this.targetView(rel);
              if (!view) continue;
              const target = objectType(this.registry, view);
              fields[rel.name] =
                rel.kind === 'object'
                  ? { type: target }
                  : { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(target))), args: selectArgs(this.registry, view) };
            }
            return fields;
          },
        }),
      );
    }
    return this.registry.get(name, () => scalarType(name));
  }

  input(t: TypeNode): GraphQLInputType {
    if (t.kind === Kind.NON_NULL_TYPE) return new GraphQLNonNull(this.input(t.type) as never);
    if (t.kind === Kind.LIST_TYPE) return new GraphQLList(this.input(t.type));
    return this.named(t.name.value) as GraphQLInputType;
  }

  output(t: TypeNode): GraphQLOutputType {
    if (t.kind === Kind.NON_NULL_TYPE) return new GraphQLNonNull(this.output(t.type) as never);
    if (t.kind === Kind.LIST_TYPE) return new GraphQLList(this.output(t.type));
    return this.named(t.name.value) as GraphQLOutputType;
  }
}
