/**
 * Client selections → what the remote server is sent. Customized names go back to the
 * originals (fields get the client's response key as alias, type conditions and variable types
 * are mapped), named fragments are inlined, presets are injected into arguments and input
 * objects, and remote relationships on remote types are replaced by the fields they join on.
 * Alongside, a Shape records where the answer needs work: `__typename` values to customize,
 * joins to run, phantom join fields to strip, and the key order to keep.
 */
import {
  Kind,
  astFromValue,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  parseType,
  print,
  typeFromAST,
  valueFromASTUntyped,
  visit,
  type ArgumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type NamedTypeNode,
  type SelectionNode,
  type SelectionSetNode,
  type TypeNode,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';
import { isLosslessNumber, unmarkLossless, type ExternalContext, type RemoteJoin } from '../../../core/sdk/index.js';
import { presetValue, type PresetIndex } from './presets.js';
import type { RoleRemote } from './runtime.js';

export interface Shape {
  typenames: Set<string>;
  children: Map<string, Shape>;
  joins: Array<{ key: string; join: RemoteJoin; lhs: Array<[string, string]> }>;
  phantoms: Set<string>;
  /** Response keys in selection order (joins are put back in their place). */
  order: string[];
}

export const newShape = (): Shape => ({ typenames: new Set(), children: new Map(), joins: [], phantoms: new Set(), order: [] });

const name = (value: string) => ({ kind: Kind.NAME, value }) as const;

export class Rewriter {
  private readonly needsPresets = new Map<string, boolean>();
  private phantomCount = 0;
  /**
   * Variables the engine adds (presets), by name: as the reference sends them, a session preset
   * is `$x_svc_user_id: T!` and an input value with presets merged in is `$svc_json_var_<n>`,
   * never a literal spliced into the query text.
   */
  private readonly added = new Map<string, { type: TypeNode; value: unknown }>();
  private jsonVars = 0;

  constructor(
    readonly remote: RoleRemote,
    private readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>,
    private readonly ctx: ExternalContext,
    private readonly declared: ReadonlyMap<string, string> = new Map(),
  ) {}

  private get presets(): PresetIndex | null {
    return this.remote.presets;
  }

  selectionSet(set: SelectionSetNode, parentOriginal: string, shape: Shape, seen: Set<string> = new Set()): SelectionSetNode {
    const selections: SelectionNode[] = [];
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        selections.push(...this.field(sel, parentOriginal, shape));
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const on = sel.typeCondition ? this.remote.runtime.customizer.originalTypeName(sel.typeCondition.name.value) : parentOriginal;
        selections.push({
          ...sel,
          typeCondition: sel.typeCondition ? { kind: Kind.NAMED_TYPE, name: name(on) } : undefined,
          selectionSet: this.selectionSet(sel.selectionSet, on, shape, seen),
        });
      } else {
        const fragment = this.fragments[sel.name.value];
        if (!fragment || seen.has(sel.name.value)) continue;
        const inner = new Set(seen).add(sel.name.value);
        const on = this.remote.runtime.customizer.originalTypeName(fragment.typeCondition.name.value);
        selections.push({
          kind: Kind.INLINE_FRAGMENT,
          typeCondition: { kind: Kind.NAMED_TYPE, name: name(on) },
          directives: sel.directives,
          selectionSet: this.selectionSet(fragment.selectionSet, on, shape, inner),
        });
      }
    }
    return { kind: Kind.SELECTION_SET, selections };
  }

  /** One client field (customized names) under a parent type (original name). */
  field(node: FieldNode, parentOriginal: string, shape: Shape): SelectionNode[] {
    const custom = node.name.value;
    const key = node.alias?.value ?? custom;
    if (!shape.order.includes(key)) shape.order.push(key);
    if (custom === '__typename') {
      shape.typenames.add(key);
      return [node];
    }
    const join = this.remote.typeJoin(parentOriginal, custom);
    if (join) {
      const lhs: Array<[string, string]> = join.lhs.map((f) => [f, `__svc_join_${this.phantomCount++}`]);
      shape.joins.push({ key, join: join.plan(node, this.fragments, this.ctx, this.declared), lhs });
      for (const [, alias] of lhs) shape.phantoms.add(alias);
      return lhs.map(([f, alias]): FieldNode => ({ kind: Kind.FIELD, alias: name(alias), name: name(f) }));
    }
    const original = this.remote.runtime.customizer.originalFieldName(parentOriginal, custom);
    const parent = this.remote.view.getType(parentOriginal) as { getFields?: () => Record<string, GraphQLField<unknown, unknown>> } | undefined;
    const def = parent?.getFields?.()[original];
    if (!def) return [node];
    let selectionSet: SelectionSetNode | undefined;
    if (node.selectionSet) {
      let child = shape.children.get(key);
      if (!child) shape.children.set(key, (child = newShape()));
      selectionSet = this.selectionSet(node.selectionSet, getNamedType(def.type).name, child);
    }
    return [
      {
        ...node,
        alias: key === original ? undefined : name(key),
        name: name(original),
        arguments: this.arguments(node.arguments ?? [], def.args, `${parentOriginal}.${original}`),
        selectionSet,
      },
    ];
  }

  /** The arguments sent for one field: the client's, with presets filled in. */
  arguments(given: readonly ArgumentNode[], defs: readonly GraphQLArgument[], fieldKey: string): ArgumentNode[] {
    const argPresets = this.presets?.args.get(fieldKey);
    const out: ArgumentNode[] = [];
    for (const def of defs) {
      const preset = argPresets?.get(def.name);
      if (preset) {
        const value = presetValue(preset, def.type, this.ctx.session.variables);
        const ast = preset.kind === 'session' ? this.addVariable(preset.name.replace(/-/g, '_'), def.type, value, true) : toAst(value, def.type);
        out.push({ kind: Kind.ARGUMENT, name: name(def.name), value: ast });
        continue;
      }
      const node = given.find((a) => a.name.value === def.name);
      if (!node) continue;
      if (!this.typeNeedsPresets(def.type)) {
        out.push(node);
        continue;
      }
      const value = valueFromASTUntyped(node.value, this.ctx.variables as Record<string, unknown>);
      const merged = this.withPresets(value, def.type);
      out.push({ kind: Kind.ARGUMENT, name: node.name, value: this.addVariable(`svc_json_var_${this.jsonVars++}`, def.type, merged, false) });
    }
    return out;
  }

  /**
   * A variable of the remote's type (original names) holding `value`; a session preset's name is
   * reused when the same variable of the same type is preset twice.
   */
  private addVariable(variable: string, type: GraphQLInputType, value: unknown, nonNull: boolean): ValueNode {
    let typeNode = parseType(String(type));
    if (nonNull && typeNode.kind !== Kind.NON_NULL_TYPE) typeNode = { kind: Kind.NON_NULL_TYPE, type: typeNode };
    let chosen = variable;
    for (let n = 1; ; n++) {
      const known = this.added.get(chosen);
      if (!known && !this.declared.has(chosen)) break;
      if (known && print(known.type) === print(typeNode) && JSON.stringify(known.value) === JSON.stringify(value)) break;
      chosen = `${variable}_${n}`;
    }
    this.added.set(chosen, { type: typeNode, value });
    return { kind: Kind.VARIABLE, name: name(chosen) };
  }

  /** Whether values of this input type hold preset fields anywhere. */
  typeNeedsPresets(type: GraphQLInputType): boolean {
    if (!this.presets) return false;
    const named = getNamedType(type);
    if (!isInputObjectType(named)) return false;
    const known = this.needsPresets.get(named.name);
    if (known !== undefined) return known;
    this.needsPresets.set(named.name, false);
    const result =
      this.presets.inputFields.has(named.name) || Object.values(named.getFields()).some((f) => this.typeNeedsPresets(f.type));
    this.needsPresets.set(named.name, result);
    return result;
  }

  /** A client value of an input type with the role's presets merged in. */
  withPresets(value: unknown, type: GraphQLInputType): unknown {
    if (value === null || value === undefined) return value;
    const t = isNonNullType(type) ? type.ofType : type;
    if (isListType(t)) return Array.isArray(value) ? value.map((v) => this.withPresets(v, t.ofType)) : this.withPresets(value, t.ofType);
    if (!isInputObjectType(t) || typeof value !== 'object') return value;
    const presets = this.presets?.inputFields.get(t.name);
    const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    for (const f of Object.values(t.getFields())) {
      const p = presets?.get(f.name);
      if (p) out[f.name] = presetValue(p, f.type, this.ctx.session.variables);
      else if (f.name in out) out[f.name] = this.withPresets(out[f.name], f.type);
    }
    return out;
  }

  /** Definitions and values of the variables the rewritten selections use. */
  variables(selections: readonly SelectionNode[], declared: ReadonlyMap<string, string>): { definitions: VariableDefinitionNode[]; values: Record<string, unknown> } {
    const used = new Set<string>();
    for (const s of selections) {
      visit(s, {
        Variable(v) {
          used.add(v.name.value);
        },
      });
    }
    const definitions: VariableDefinitionNode[] = [];
    const values: Record<string, unknown> = {};
    for (const v of used) {
      const text = declared.get(v);
      if (!text) continue;
      const type = this.originalTypeNode(parseType(text));
      definitions.push({ kind: Kind.VARIABLE_DEFINITION, variable: { kind: Kind.VARIABLE, name: name(v) }, type });
      const value = this.ctx.variables[v];
      if (value === undefined) continue;
      const gqlType = typeFromAST(this.remote.view, type as never) as GraphQLInputType | undefined;
      values[v] = gqlType && this.typeNeedsPresets(gqlType) ? this.withPresets(value, gqlType) : value;
    }
    for (const v of used) {
      const extra = this.added.get(v);
      if (!extra || declared.has(v)) continue;
      definitions.push({ kind: Kind.VARIABLE_DEFINITION, variable: { kind: Kind.VARIABLE, name: name(v) }, type: extra.type });
      values[v] = extra.value;
    }
    return { definitions, values };
  }

  private originalTypeNode(t: TypeNode): TypeNode {
    if (t.kind === Kind.NON_NULL_TYPE) return { ...t, type: this.originalTypeNode(t.type) as never };
    if (t.kind === Kind.LIST_TYPE) return { ...t, type: this.originalTypeNode(t.type) };
    const n: NamedTypeNode = { ...t, name: name(this.remote.runtime.customizer.originalTypeName(t.name.value)) };
    return n;
  }
}

/** A JSON value as a GraphQL literal of the given type (untyped for custom scalars holding objects). */
export function toAst(value: unknown, type: GraphQLInputType): ValueNode {
  if (holdsLossless(value)) return losslessAst(value, type);
  try {
    const ast = astFromValue(value, type);
    if (ast) return ast;
  } catch {
    /* a custom scalar holding an object or a list: written untyped below */
  }
  return untypedAst(value);
}

/** Whether a value holds a marked number (a join key read losslessly from a database answer). */
function holdsLossless(value: unknown): boolean {
  if (typeof value === 'string') return isLosslessNumber(value);
  if (Array.isArray(value)) return value.some(holdsLossless);
  if (value !== null && typeof value === 'object') return Object.values(value).some(holdsLossless);
  return false;
}

/** A marked number as a literal: its exact digits, quoted only where the type is String. */
function numberAst(value: string, type: GraphQLInputType | null): ValueNode {
  const token = String(unmarkLossless(value));
  if (type && getNamedType(type).name === 'String') return { kind: Kind.STRING, value: token };
  return /^-?\d+$/.test(token) ? { kind: Kind.INT, value: token } : { kind: Kind.FLOAT, value: token };
}

/**
 * A value holding marked numbers, written by hand: graphql-js would serialise the marked string
 * (or round the number), and the remote must get the digits the database gave.
 */
function losslessAst(value: unknown, type: GraphQLInputType | null): ValueNode {
  const t = type && isNonNullType(type) ? (type.ofType as GraphQLInputType) : type;
  if (typeof value === 'string' && isLosslessNumber(value)) return numberAst(value, t);
  if (Array.isArray(value)) {
    const item = t && isListType(t) ? (t.ofType as GraphQLInputType) : null;
    return { kind: Kind.LIST, values: value.map((v) => losslessAst(v, item)) };
  }
  if (value !== null && typeof value === 'object') {
    const fields = t && isInputObjectType(t) ? t.getFields() : null;
    return {
      kind: Kind.OBJECT,
      fields: Object.entries(value as Record<string, unknown>).map(([k, v]) => ({ kind: Kind.OBJECT_FIELD, name: name(k), value: losslessAst(v, fields?.[k]?.type ?? null) })),
    };
  }
  return t ? toAst(value, t) : untypedAst(value);
}

export function untypedAst(value: unknown): ValueNode {
  if (value === null || value === undefined) return { kind: Kind.NULL };
  if (typeof value === 'string' && isLosslessNumber(value)) return numberAst(value, null);
  if (typeof value === 'boolean') return { kind: Kind.BOOLEAN, value };
  if (typeof value === 'number') return Number.isInteger(value) ? { kind: Kind.INT, value: String(value) } : { kind: Kind.FLOAT, value: String(value) };
  if (typeof value === 'string') return { kind: Kind.STRING, value };
  if (Array.isArray(value)) return { kind: Kind.LIST, values: value.map(untypedAst) };
  return {
    kind: Kind.OBJECT,
    fields: Object.entries(value as Record<string, unknown>).map(([k, v]) => ({ kind: Kind.OBJECT_FIELD, name: name(k), value: untypedAst(v) })),
  };
}

export type { GraphQLNamedType };
