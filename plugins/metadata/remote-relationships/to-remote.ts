/**
 * Joins to a remote schema field. The field shown is the innermost `remote_field` with the
 * arguments the template does not fix; a batch of parent rows becomes ONE request with one
 * aliased root field per distinct argument tuple (`__rr0: message(id: 1) {...}`), and each
 * row gets its tuple's answer. A row with a null join value gets null without a call.
 */
import {
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  Kind,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  valueFromASTUntyped,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
  type ArgumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLType,
} from 'graphql';
import { EngineError, isEngineError, isPlainObject, type ExternalContext, type RemoteJoin } from '../../../core/sdk/index.js';
import { newShape, Rewriter, toAst, type Shape } from '../remote-schemas/rewrite.js';
import { send, type OutgoingRoot, type RoleRemote } from '../remote-schemas/runtime.js';
import { fillTemplate, type RemoteFieldStep } from './definition.js';

type Field = GraphQLField<unknown, unknown>;

/** The field definitions along a `remote_field` path in a schema, or the reason it does not resolve. */
export function pathFields(schema: RoleRemote['view'], steps: readonly RemoteFieldStep[]): { fields: Field[]; parents: string[] } | string {
  let parent: GraphQLObjectType | null | undefined = schema.getQueryType();
  const fields: Field[] = [];
  const parents: string[] = [];
  for (const step of steps) {
    const def: Field | undefined = parent?.getFields()[step.field];
    if (!parent || !def) return `field with name ${JSON.stringify(step.field)} not found in remote schema`;
    // The last level's open arguments become the field's; above it nothing can supply them.
    const last = step === steps[steps.length - 1];
    const missing = def.args.find((a) => !last && isNonNullType(a.type) && a.defaultValue === undefined && !(a.name in step.arguments));
    if (missing) return `required argument with name ${JSON.stringify(missing.name)} is missing`;
    for (const name of Object.keys(step.arguments)) {
      if (!def.args.some((a) => a.name === name)) return `argument with name ${JSON.stringify(name)} not found in field ${JSON.stringify(step.field)}`;
    }
    fields.push(def);
    parents.push(parent.name);
    const next = getNamedType(def.type);
    parent = 'getFields' in next && !('getValues' in next) ? (next as GraphQLObjectType) : null;
  }
  return { fields, parents };
}

function roleType(role: RoleRemote, t: GraphQLType): GraphQLType {
  if (isNonNullType(t)) return new GraphQLNonNull(roleType(role, t.ofType) as never);
  if (isListType(t)) return new GraphQLList(roleType(role, t.ofType));
  return role.types.typeOf(getNamedType(t).name)!;
}

/** Input types stripped of a relationship's fixed fields, per role schema, by name. */
const strippedTypes = new WeakMap<RoleRemote, Map<string, GraphQLInputObjectType | null>>();

/**
 * An input object type without the fields a template fixes (recursively), named as the
 * reference names it: `<Type>_remote_rel_<suffix>`; null when no field is left to the client.
 */
function strippedInput(role: RoleRemote, original: GraphQLInputObjectType, template: Record<string, unknown>, suffix: string): GraphQLInputObjectType | null {
  const custom = role.types.typeOf(original.name)!.name;
  const typeName = `${custom}_remote_rel_${suffix}`;
  let cache = strippedTypes.get(role);
  if (!cache) strippedTypes.set(role, (cache = new Map()));
  if (cache.has(typeName)) return cache.get(typeName)!;
  const fields: GraphQLInputFieldConfigMap = {};
  for (const f of Object.values(original.getFields())) {
    if (!(f.name in template)) {
      fields[f.name] = { type: roleType(role, f.type) as never, description: f.description };
      continue;
    }
    const inner = partial(role, f.type, template[f.name], suffix);
    if (inner) fields[f.name] = { type: inner, description: f.description };
  }
  const out = Object.keys(fields).length === 0 ? null : new GraphQLInputObjectType({ name: typeName, description: original.description, fields });
  cache.set(typeName, out);
  return out;
}

/** What is left to the client of a value the template fixes: an input object's open fields, or nothing. */
function partial(role: RoleRemote, type: GraphQLInputType, template: unknown, suffix: string): GraphQLInputObjectType | null {
  const t = isNonNullType(type) ? type.ofType : type;
  if (!isInputObjectType(t) || !isPlainObject(template)) return null;
  return strippedInput(role, t, template, suffix);
}

/** The client's value of a partly fixed argument with the template's filled values laid over it. */
function overlay(user: unknown, fixed: unknown): unknown {
  if (!isPlainObject(user) || !isPlainObject(fixed)) return fixed;
  const out: Record<string, unknown> = { ...user };
  for (const [k, v] of Object.entries(fixed)) out[k] = k in user ? overlay(user[k], v) : v;
  return out;
}

/**
 * The relationship field as the role sees it; null when the path is not in the role's view.
 * `suffix` names the types of partly fixed arguments (`<schema>_<table><relationship>`).
 */
export function remoteFieldConfig(role: RoleRemote, steps: readonly RemoteFieldStep[], suffix: string): GraphQLFieldConfig<unknown, unknown> | null {
  const resolved = pathFields(role.view, steps);
  if (typeof resolved === 'string') return null;
  const last = resolved.fields[resolved.fields.length - 1]!;
  const fixed = steps[steps.length - 1]!.arguments;
  const args: GraphQLFieldConfigArgumentMap = {};
  for (const a of last.args) {
    if (!(a.name in fixed)) {
      args[a.name] = { type: roleType(role, a.type) as never, description: a.description };
      continue;
    }
    // A template fixing only some fields of an input object leaves the others to the client.
    const open = partial(role, a.type, fixed[a.name], suffix);
    if (open) args[a.name] = { type: open, description: a.description };
  }
  // A row with a null join value answers null: the field is nullable whatever the remote says.
  let type = roleType(role, last.type) as GraphQLOutputType;
  if (isNonNullType(type)) type = type.ofType;
  return { type, args, description: last.description };
}

/** The join of one selection of the relationship field. */
export function remoteJoin(
  role: RoleRemote,
  steps: readonly RemoteFieldStep[],
  lhs: readonly string[],
  node: FieldNode,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  declared: ReadonlyMap<string, string>,
): RemoteJoin {
  return {
    async resolve(keys, ctx: ExternalContext): Promise<unknown[]> {
      const resolved = pathFields(role.view, steps);
      if (typeof resolved === 'string') throw new EngineError('unexpected', resolved);
      const distinct = new Map<string, number>();
      const tuples: Array<Readonly<Record<string, unknown>>> = [];
      const slot = keys.map((k) => {
        if (lhs.some((c) => k[c] === null || k[c] === undefined)) return -1;
        const id = JSON.stringify(lhs.map((c) => k[c]));
        let i = distinct.get(id);
        if (i === undefined) {
          i = tuples.length;
          distinct.set(id, i);
          tuples.push(k);
        }
        return i;
      });
      if (tuples.length === 0) return keys.map(() => null);
      const rewriter = new Rewriter(role, fragments, ctx, declared);
      const lastIndex = steps.length - 1;
      const innerType = getNamedType(resolved.fields[lastIndex]!.type).name;
      const innerShape = newShape();
      const selectionSet = node.selectionSet ? rewriter.selectionSet(node.selectionSet, innerType, innerShape) : undefined;
      const fixed = new Set(Object.keys(steps[lastIndex]!.arguments));
      const userArgs = (node.arguments ?? []).filter((a) => !fixed.has(a.name.value));
      // What the client gave for partly fixed arguments, to lay the template's values over.
      const userFixed = new Map(
        (node.arguments ?? []).filter((a) => fixed.has(a.name.value)).map((a) => [a.name.value, valueFromASTUntyped(a.value, ctx.variables as Record<string, unknown>)] as const),
      );
      const roots = tuples.map((row, i): OutgoingRoot => {
        let shape: Shape = innerShape;
        let field: FieldNode | null = null;
        for (let j = lastIndex; j >= 0; j--) {
          const step = steps[j]!;
          const def = resolved.fields[j]!;
          const templated: ArgumentNode[] = Object.entries(step.arguments).map(([name, tpl]) => {
            const filled = fillTemplate(tpl, row);
            const value = j === lastIndex && userFixed.has(name) ? overlay(userFixed.get(name), filled) : filled;
            return { kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: name }, value: toAst(value, def.args.find((a) => a.name === name)!.type) };
          });
          const given = j === lastIndex ? [...templated, ...userArgs] : templated;
          const args = rewriter.arguments(given, def.args, `${resolved.parents[j]}.${step.field}`);
          const inner: FieldNode | null = field;
          field = {
            kind: Kind.FIELD,
            name: { kind: Kind.NAME, value: step.field },
            ...(j === 0 ? { alias: { kind: Kind.NAME, value: `__rr${i}` } } : {}),
            arguments: args,
            selectionSet: inner ? { kind: Kind.SELECTION_SET, selections: [inner] } : selectionSet,
          };
          if (j > 0) {
            const outer = newShape();
            outer.children.set(step.field, shape);
            shape = outer;
          }
        }
        return { node: field!, shape };
      });
      let values: unknown[];
      try {
        values = await send(role, rewriter, ctx, 'query', roots, declared);
      } catch (e) {
        // The reference gives no partial data for joins: one error, the remote's errors inside.
        if (isEngineError(e) && e.graphqlErrors) throw new EngineError('unexpected', 'Errors from remote server', { internal: { errors: e.graphqlErrors } });
        throw e;
      }
      const answers = values.map((v) => steps.slice(1).reduce<unknown>((acc, s) => pick(acc, s.field), v));
      return slot.map((i) => (i < 0 ? null : (answers[i] ?? null)));
    },
  };
}

function pick(value: unknown, key: string): unknown {
  if (Array.isArray(value)) return value.map((v) => pick(v, key));
  if (value === null || typeof value !== 'object') return null;
  return (value as Record<string, unknown>)[key] ?? null;
}
