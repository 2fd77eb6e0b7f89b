/**
 * A remote schema as one role sees it: the upstream types (or the role's restricted subset) with
 * customized names, as new graphql-js type objects that join the role's schema. Preset arguments
 * and input fields are left out (the engine fills them in). Built-in scalars are graphql-js's
 * own and custom scalars the engine's shared ones, so a `uuid` of the remote and of a database
 * are the same type.
 */
import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLUnionType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  specifiedScalarTypes,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLInputFieldConfigMap,
  type GraphQLNamedType,
  type GraphQLSchema,
  type GraphQLType,
} from 'graphql';
import { scalarType } from '../../../core/sdk/index.js';
import type { Customizer } from './customize.js';

const SPECIFIED = new Map(specifiedScalarTypes.map((t) => [t.name, t] as const));

/** Whether an argument or input field carries `@preset` (it is then not exposed). */
export const hasPreset = (node: { astNode?: { directives?: readonly { name: { value: string } }[] } | null | undefined }): boolean =>
  !!node.astNode?.directives?.some((d) => d.name.value === 'preset');

export interface RootFieldConfig {
  /** The customized name. */
  name: string;
  original: string;
  config: GraphQLFieldConfig<unknown, unknown>;
}

export interface RemoteRoleTypes {
  /** Customized named types, by customized name. */
  types: Map<string, GraphQLNamedType>;
  query: RootFieldConfig[];
  mutation: RootFieldConfig[];
  /** Customized root type objects (for a namespace field and `__typename`). */
  queryType: GraphQLObjectType | null;
  mutationType: GraphQLObjectType | null;
  /** The customized type of an original type name. */
  typeOf(original: string): GraphQLNamedType | undefined;
}

/** Fields added to a remote object type (remote relationships), by original type name. */
export type ExtraTypeFields = (typeOriginal: string) => Record<string, GraphQLFieldConfig<unknown, unknown>> | undefined;

export function buildRoleTypes(view: GraphQLSchema, customizer: Customizer, extra?: ExtraTypeFields, shared?: Map<string, GraphQLNamedType>): RemoteRoleTypes {
  const types = new Map<string, GraphQLNamedType>();
  const made = new Map<string, GraphQLNamedType>();
  const rootNames = new Set([view.getQueryType()?.name, view.getMutationType()?.name, view.getSubscriptionType()?.name].filter((n): n is string => !!n));

  const named = (original: string): GraphQLNamedType => {
    const known = made.get(original);
    if (known) return known;
    const t = view.getType(original);
    if (!t) throw new Error(`type ${original} not found in the remote schema`);
    const custom = customizer.typeName(original);
    // Root types are this remote's own (they are not in the schema unless namespaced, and renamed then).
    const share = shared && !rootNames.has(original) ? shared : undefined;
    let out: GraphQLNamedType;
    if (isScalarType(t)) out = SPECIFIED.get(custom) ?? scalarType(custom);
    else if (share?.has(custom)) out = share.get(custom)!;
    else if (isObjectType(t)) {
      out = new GraphQLObjectType({
        name: custom,
        description: t.description,
        interfaces: () => t.getInterfaces().map((i) => named(i.name) as GraphQLInterfaceType),
        fields: () => ({ ...fieldMap(t.name, t.getFields()), ...extra?.(t.name) }),
      });
    } else if (isInterfaceType(t)) {
      out = new GraphQLInterfaceType({
        name: custom,
        description: t.description,
        interfaces: () => t.getInterfaces().map((i) => named(i.name) as GraphQLInterfaceType),
        fields: () => fieldMap(t.name, t.getFields()),
      });
    } else if (isUnionType(t)) {
      out = new GraphQLUnionType({ name: custom, description: t.description, types: () => t.getTypes().map((m) => named(m.name) as GraphQLObjectType) });
    } else if (isEnumType(t)) {
      const values: Record<string, { value: string; description?: string | null; deprecationReason?: string | null }> = {};
      for (const v of t.getValues()) values[v.name] = { value: v.name, description: v.description, deprecationReason: v.deprecationReason };
      out = new GraphQLEnumType({ name: custom, description: t.description, values });
    } else if (isInputObjectType(t)) {
      out = new GraphQLInputObjectType({
        name: custom,
        description: t.description,
        fields: () => {
          const fields: GraphQLInputFieldConfigMap = {};
          for (const f of Object.values(t.getFields())) {
            if (hasPreset(f)) continue;
            fields[f.name] = { type: wrap(f.type) as never, description: f.description, defaultValue: f.defaultValue };
          }
          return fields;
        },
      });
    } else {
      throw new Error(`unsupported type ${original}`);
    }
    made.set(original, out);
    if (!isScalarType(out) || !SPECIFIED.has(out.name)) types.set(out.name, out);
    if (share && !share.has(out.name) && !isScalarType(out)) share.set(out.name, out);
    return out;
  };

  const wrap = (t: GraphQLType): GraphQLType => {
    if (isNonNullType(t)) return new GraphQLNonNull(wrap(t.ofType) as never);
    if (isListType(t)) return new GraphQLList(wrap(t.ofType));
    return named((t as GraphQLNamedType).name);
  };

  const args = (list: readonly GraphQLArgument[]): GraphQLFieldConfigArgumentMap => {
    const out: GraphQLFieldConfigArgumentMap = {};
    for (const a of list) {
      if (hasPreset(a)) continue;
      out[a.name] = { type: wrap(a.type) as never, description: a.description, defaultValue: a.defaultValue, deprecationReason: a.deprecationReason };
    }
    return out;
  };

  const fieldConfig = (f: GraphQLField<unknown, unknown>): GraphQLFieldConfig<unknown, unknown> => ({
    type: wrap(f.type) as never,
    description: f.description,
    deprecationReason: f.deprecationReason,
    args: args(f.args),
  });

  const fieldMap = (parent: string, fields: Record<string, GraphQLField<unknown, unknown>>) => {
    const out: Record<string, GraphQLFieldConfig<unknown, unknown>> = {};
    for (const f of Object.values(fields)) out[customizer.fieldName(parent, f.name)] = fieldConfig(f);
    return out;
  };

  const roots = (t: GraphQLObjectType | null | undefined): RootFieldConfig[] =>
    t ? Object.values(t.getFields()).map((f) => ({ name: customizer.fieldName(t.name, f.name), original: f.name, config: fieldConfig(f) })) : [];

  const q = view.getQueryType();
  const m = view.getMutationType();
  return {
    types,
    query: roots(q),
    mutation: roots(m),
    queryType: q ? (named(q.name) as GraphQLObjectType) : null,
    mutationType: m ? (named(m.name) as GraphQLObjectType) : null,
    typeOf: (original) => (view.getType(original) ? named(original) : undefined),
  };
}
