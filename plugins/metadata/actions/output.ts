/**
 * An action's output: planned once per plan from the selection set, checked and shaped per
 * request. The handler's JSON must match the selected fields' types (extra fields are ignored,
 * as in the reference); the answer keeps aliases and `__typename`. Relationships from the output
 * to tables run after the handler answered, ONE statement per relationship field for all output
 * objects together: the rows whose columns match any object's fields, with the role's permission,
 * then handed out per object (limit and offset apply per object).
 */
import {
  and,
  bindParams,
  buildSelect,
  collectFields,
  EngineError,
  isLosslessInteger,
  isLosslessNumber,
  parseLossless,
  stringifyLossless,
  subSelection,
  unmarkLossless,
  type FieldIR,
  type BoolExpIR,
  type PlanContext,
  type SchemaCache,
  type SelectIR,
  type Session,
  type RunOptions,
  type TableView,
  type TypedValueIR,
} from '../../../core/sdk/index.js';
import {
  GraphQLNonNull,
  GraphQLList,
  GraphQLObjectType,
  GraphQLEnumType,
  getNamedType,
  type GraphQLOutputType,
  type SelectionSetNode,
} from 'graphql';
import type { ResolvedObjectRelationship, ResolvedObjectType } from '../custom-types/resolve.js';
import type { CustomTypeBuilder } from './types.js';

export type FieldPlan =
  | { kind: 'typename'; key: string; value: string }
  | { kind: 'value'; key: string; name: string; type: GraphQLOutputType; sub: SelectionPlan | null }
  | { kind: 'relationship'; key: string; rel: ResolvedObjectRelationship; view: TableView; select: SelectIR };

export interface SelectionPlan {
  object: ResolvedObjectType;
  typeName: string;
  fields: FieldPlan[];
}

export interface PlanDeps {
  types: CustomTypeBuilder;
  objects: ReadonlyMap<string, ResolvedObjectType>;
}

/** Plans the selection of an output object type (and of nested objects, recursively). */
export function planSelection(type: GraphQLObjectType, set: SelectionSetNode | undefined, deps: PlanDeps, ctx: PlanContext, path: string): SelectionPlan {
  const object = deps.objects.get(type.name)!;
  const fields: FieldPlan[] = [];
  for (const f of collectFields(set, ctx)) {
    if (f.name === '__typename') {
      fields.push({ kind: 'typename', key: f.key, value: type.name });
      continue;
    }
    const rel = object.relationships.find((r) => r.name === f.name);
    if (rel) {
      const view = deps.types.targetView(rel)!;
      fields.push({ kind: 'relationship', key: f.key, rel, view, select: buildSelect(view, f, ctx, `${path}.${f.key}`) });
      continue;
    }
    const fieldType = type.getFields()[f.name]!.type;
    const named = getNamedType(fieldType);
    const sub = named instanceof GraphQLObjectType ? planSelection(named, subSelection(f), deps, ctx, `${path}.${f.key}`) : null;
    fields.push({ kind: 'value', key: f.key, name: f.name, type: fieldType, sub });
  }
  return { object, typeName: type.name, fields };
}

const fail = (message: string, internal?: unknown): EngineError => new EngineError('unexpected', message, { path: '$', ...(internal !== undefined ? { internal } : {}) });

const jsonKind = (v: unknown): string =>
  isLosslessNumber(v) ? 'Number' : v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'string' ? 'String' : typeof v === 'number' ? 'Number' : 'Boolean';

/** A pending relationship: fill `holder[key]` from the rows matching `keys`. */
interface Hole {
  plan: Extract<FieldPlan, { kind: 'relationship' }>;
  holder: Record<string, unknown>;
  keys: unknown[];
}

class Projector {
  readonly holes: Hole[] = [];

  /** The root value: the reference's messages for the whole response. */
  root(value: unknown, type: GraphQLOutputType, plan: SelectionPlan): unknown {
    if (type instanceof GraphQLNonNull) {
      if (value === null || value === undefined) throw fail('got null for the action webhook response');
      return this.root(value, type.ofType, plan);
    }
    if (value === null || value === undefined) return null;
    if (type instanceof GraphQLList) {
      if (!Array.isArray(value)) throw fail('expecting array for the action webhook response');
      return value.map((v) => this.root(v, type.ofType, plan));
    }
    if (typeof value !== 'object' || Array.isArray(value)) {
      const what = Array.isArray(value) ? 'array' : `scalar ${jsonKind(value)}`;
      throw fail(`got ${what} for the action webhook response, expecting ${plan.typeName}`);
    }
    return this.object(value as Record<string, unknown>, plan);
  }

  private object(value: Record<string, unknown>, plan: SelectionPlan): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const f of plan.fields) {
      switch (f.kind) {
        case 'typename':
          out[f.key] = f.value;
          break;
        case 'relationship': {
          const keys = f.rel.mapping.map(([field]) => value[field]);
          out[f.key] = null;
          this.holes.push({ plan: f, holder: out, keys });
          break;
        }
        case 'value': {
          const v = value[f.name];
          if (v === undefined && f.type instanceof GraphQLNonNull) throw fail(`field "${f.name}" expected in webhook response, but not found`);
          out[f.key] = this.value(v ?? null, f.type, f, f.name);
          break;
        }
      }
    }
    return out;
  }

  private value(v: unknown, type: GraphQLOutputType, f: Extract<FieldPlan, { kind: 'value' }>, name: string): unknown {
    if (type instanceof GraphQLNonNull) {
      if (v === null) throw fail(`expecting not null value for field "${name}"`);
      return this.value(v, type.ofType, f, name);
    }
    if (v === null) return null;
    if (type instanceof GraphQLList) {
      if (!Array.isArray(v)) throw fail(`expecting array for field "${name}", but found ${jsonKind(v)}`);
      return v.map((x) => this.value(x, type.ofType, f, name));
    }
    if (type instanceof GraphQLObjectType) {
      if (typeof v !== 'object' || Array.isArray(v)) throw fail(`got ${jsonKind(v)} for field "${name}", expecting ${type.name}`);
      return this.object(v as Record<string, unknown>, f.sub!);
    }
    if (type instanceof GraphQLEnumType) {
      if (typeof v !== 'string' || !type.getValue(v)) throw fail(`unexpected value ${JSON.stringify(v)} for enum "${type.name}" in field "${name}"`);
      return v;
    }
    const ok = checkScalar(type.name, v);
    if (!ok) throw fail(`got scalar ${jsonKind(v)} for field "${name}", expecting ${type.name}`);
    return v;
  }
}

/** Built-in scalars are checked; custom and database scalars pass through, as in the reference. */
function checkScalar(name: string, v: unknown): boolean {
  switch (name) {
    case 'Int':
      return typeof v === 'number' && Number.isInteger(v);
    case 'Float':
      return typeof v === 'number' || isLosslessNumber(v);
    case 'String':
      return typeof v === 'string';
    case 'Boolean':
      return typeof v === 'boolean';
    case 'ID':
      return (typeof v === 'string' && !isLosslessNumber(v)) || (typeof v === 'number' && Number.isInteger(v)) || isLosslessInteger(v);
    default:
      return true;
  }
}

export interface RunContext {
  cache: SchemaCache;
  variables: Readonly<Record<string, unknown>>;
  session: Session;
  stringifyNumericTypes: boolean;
  run?: RunOptions;
}

const HIDDEN_KEY = '__svc_key_';

function constValue(v: TypedValueIR | null, variables: Readonly<Record<string, unknown>>): number | null {
  if (!v) return null;
  const value = v.value.kind === 'const' ? v.value.value : v.value.kind === 'variable' ? variables[v.value.name] : null;
  return value === null || value === undefined ? null : Number(value);
}

/** Runs one relationship's statement for every hole of it. */
async function fillRelationship(plan: Extract<FieldPlan, { kind: 'relationship' }>, holes: Hole[], rc: RunContext): Promise<void> {
  const single = plan.rel.kind === 'object';
  const columns = plan.rel.mapping.map(([, column]) => plan.rel.table.columnsByName.get(column)!);
  // Keys compare as text: a bigint beyond 2^53 is kept as its digits on both sides.
  const tupleKey = (values: readonly unknown[]): string => JSON.stringify(values.map((v) => (v === null || v === undefined ? null : String(unmarkLossless(v)))));
  const wanted = new Map<string, unknown[]>();
  for (const h of holes) if (h.keys.every((k) => k !== null && k !== undefined)) wanted.set(tupleKey(h.keys), h.keys);
  const groups = new Map<string, Array<Record<string, unknown>>>();
  if (wanted.size > 0) {
    const tuples = [...wanted.values()];
    const keyFilter: BoolExpIR =
      columns.length === 1
        ? {
            kind: 'compare',
            lhs: { kind: 'column', name: columns[0]!.name, type: columns[0]!.type },
            op: '_in',
            rhs: { value: { kind: 'const', value: tuples.map((t) => unmarkLossless(t[0])) }, dbType: columns[0]!.type, array: true },
          }
        : {
            kind: 'or',
            items: tuples.map((t) => and(columns.map((c, i): BoolExpIR => ({
              kind: 'compare',
              lhs: { kind: 'column', name: c.name, type: c.type },
              op: '_eq',
              rhs: { value: { kind: 'const', value: unmarkLossless(t[i]) }, dbType: c.type },
            })))),
          };
    const hidden: FieldIR[] = columns.map((c, i) => ({ kind: 'column', alias: `${HIDDEN_KEY}${i}`, name: c.name, type: c.type }));
    const select: SelectIR = {
      ...plan.select,
      where: plan.select.where ? and([plan.select.where, keyFilter]) : keyFilter,
      // Paging applies per output object, below; DISTINCT ON too, so the key columns lead it.
      limit: null,
      offset: null,
      permissionLimit: null,
      distinctOn: plan.select.distinctOn.length > 0 ? [...columns.map((c) => c.name), ...plan.select.distinctOn] : [],
      fields: [...plan.select.fields, ...hidden],
    };
    const source = rc.cache.sources.get(plan.rel.source);
    if (!source) throw new EngineError('unexpected', `source "${plan.rel.source}" is not available`);
    const statement = source.connection.compileQuery({ kind: 'select', source: source.name, select, single: false }, { stringifyNumericTypes: rc.stringifyNumericTypes });
    const values = bindParams(statement.params, rc.variables as Record<string, unknown>, rc.session);
    const text = await source.connection.runQuery(statement, JSON.stringify(rc.session.variables), values, rc.run);
    for (const row of parseLossless(text) as Array<Record<string, unknown>>) {
      const key = tupleKey(columns.map((_, i) => row[`${HIDDEN_KEY}${i}`]));
      for (let i = 0; i < columns.length; i++) delete row[`${HIDDEN_KEY}${i}`];
      const list = groups.get(key);
      if (list) list.push(row);
      else groups.set(key, [row]);
    }
  }
  const offset = constValue(plan.select.offset, rc.variables) ?? 0;
  const limits = [constValue(plan.select.limit, rc.variables), plan.select.permissionLimit].filter((x): x is number => x !== null);
  const limit = limits.length > 0 ? Math.min(...limits) : Infinity;
  for (const h of holes) {
    const rows = groups.get(tupleKey(h.keys)) ?? [];
    h.holder[h.plan.key] = single ? (rows[0] ?? null) : rows.slice(offset, offset + limit);
  }
}

/** Checks and shapes a handler's answer; runs the relationships; returns the field's JSON text. */
export async function projectOutput(value: unknown, type: GraphQLOutputType, plan: SelectionPlan, rc: RunContext): Promise<string> {
  const p = new Projector();
  const out = p.root(value, type, plan);
  const byPlan = new Map<FieldPlan, Hole[]>();
  for (const h of p.holes) {
    const list = byPlan.get(h.plan);
    if (list) list.push(h);
    else byPlan.set(h.plan, [h]);
  }
  await Promise.all([...byPlan].map(([plan, holes]) => fillRelationship(plan as Extract<FieldPlan, { kind: 'relationship' }>, holes, rc)));
  return stringifyLossless(out);
}

