/**
 * Mutations of a GraphQL request for the coverage-guided fuzzer. Most work on the parsed document
 * (so the result usually still parses and reaches the planner and the SQL compiler): values
 * replaced by strings full of quotes, backslashes, NUL bytes and unicode, or by huge numbers;
 * operators and column names swapped; values wrapped in deep `_and`/`_not`/relationship nesting;
 * arguments and object fields dropped or spliced in from another input; the role changed. Some
 * work on the text or the variables' JSON, for the parser and the variable coercion.
 */
import {
  Kind,
  parse,
  print,
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  type ObjectFieldNode,
  type ValueNode,
} from 'graphql';
import { NASTY_STRINGS } from '../graphql-inputs.js';

export interface FuzzInput {
  query: string;
  variables: Record<string, unknown>;
  /** `admin`, or a user id (role `user`). */
  as: 'admin' | number;
}

/** A small seeded PRNG (mulberry32), so a run can be replayed with FUZZ_SEED. */
export class Rng {
  constructor(private state: number) {}

  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

export const OPERATORS = [
  '_eq', '_neq', '_gt', '_lt', '_gte', '_lte', '_in', '_nin', '_like', '_nlike', '_ilike', '_nilike', '_similar',
  '_nsimilar', '_regex', '_nregex', '_iregex', '_niregex', '_is_null', '_contains', '_contained_in', '_has_key',
  '_has_keys_any', '_has_keys_all', '_cast', '_and', '_or', '_not', '_set', '_inc', '_append', '_prepend',
  '_delete_key', '_delete_elem', '_delete_at_path', '_st_intersects', '_ceq', '_cgt',
] as const;

/** Names a request may use: columns (readable and forbidden), relationships, root fields, arguments. */
export const NAMES = [
  'id', 'name', 'owner_id', 'parent_id', 'price', 'tags', 'token', 'parent', 'c0', 'c1', 'c2', 'aggregate', 'nodes',
  'count', 'sum', 'avg', 'max', 'min', 'item', 'item_by_pk', 'item_aggregate', 'gen_0', 'gen_1', 'gen_0_by_pk',
  'insert_item', 'insert_item_one', 'update_item', 'update_item_by_pk', 'update_item_many', 'delete_item',
  'delete_item_by_pk', 'where', 'order_by', 'distinct_on', 'limit', 'offset', 'objects', 'object', 'on_conflict',
  'pk_columns', 'updates', 'returning', 'affected_rows', '__typename', 'item_stream', 'cursor', 'batch_size',
] as const;

const ENUM_VALUES = ['asc', 'desc', 'asc_nulls_first', 'desc_nulls_last', 'id', 'name', 'owner_id', 'price', 'tags', 'token', 'item_pkey', 'c0', 'gen_0_pkey'] as const;

const HUGE_NUMBERS = [
  '0', '-0', '1e400', '-1e400', '1e308', '9007199254740993', '18446744073709551616', '2147483648', '-2147483649',
  '340282366920938463463374607431768211456', '0.000000000000000000000000000001', '123456789012345678901234567890.5',
] as const;

const TEXT_INSERTS = ['"', '\\', '\u0000', '{', '}', '[', ']', '$', '#', ':', '(', ')', '...', '@skip(if: true)', '"""', '\u2028', '🙂'] as const;

function nastyString(rng: Rng): string {
  const base = rng.pick(NASTY_STRINGS);
  if (rng.chance(0.3)) return base + rng.pick(NASTY_STRINGS);
  if (rng.chance(0.1)) return base.repeat(1 + rng.int(2000));
  return base;
}

function scalarValue(rng: Rng): ValueNode {
  switch (rng.int(6)) {
    case 0:
    case 1:
      return { kind: Kind.STRING, value: nastyString(rng) };
    case 2: {
      const n = rng.pick(HUGE_NUMBERS);
      return /[.e]/.test(n) ? { kind: Kind.FLOAT, value: n } : { kind: Kind.INT, value: n };
    }
    case 3:
      return { kind: Kind.ENUM, value: rng.pick(ENUM_VALUES) };
    case 4:
      return rng.chance(0.5) ? { kind: Kind.NULL } : { kind: Kind.BOOLEAN, value: rng.chance(0.5) };
    default:
      return { kind: Kind.INT, value: String(rng.int(40) - 3) };
  }
}

/**
 * A value of the same kind as `v`, so the request mostly still validates and reaches the planner
 * and the compiler: another nasty string, a number of the same kind (sometimes past its range),
 * another enum value, a list grown or emptied.
 */
function similarValue(rng: Rng, v: ValueNode): ValueNode {
  switch (v.kind) {
    case Kind.STRING:
      return { kind: Kind.STRING, value: nastyString(rng) };
    case Kind.INT:
      return { kind: Kind.INT, value: rng.chance(0.7) ? String(rng.int(40) - 3) : rng.pick(HUGE_NUMBERS.filter((n) => !/[.e]/.test(n))) };
    case Kind.FLOAT:
      return { kind: Kind.FLOAT, value: rng.pick(HUGE_NUMBERS.filter((n) => /[.e]/.test(n))) };
    case Kind.ENUM:
      return { kind: Kind.ENUM, value: rng.pick(ENUM_VALUES) };
    case Kind.BOOLEAN:
      return { kind: Kind.BOOLEAN, value: !v.value };
    case Kind.LIST:
      if (v.values.length === 0 || rng.chance(0.2)) return { kind: Kind.LIST, values: [] };
      return { kind: Kind.LIST, values: [...v.values, structuredClone(rng.pick(v.values))] };
    default:
      return scalarValue(rng);
  }
}

const name = (value: string) => ({ kind: Kind.NAME, value }) as const;
const objectField = (key: string, value: ValueNode): ObjectFieldNode => ({ kind: Kind.OBJECT_FIELD, name: name(key), value });

/** `v` wrapped `depth` times in `_and`/`_or` lists, `_not` and the `parent` relationship. */
function nest(rng: Rng, v: ValueNode, depth: number): ValueNode {
  let out = v;
  for (let i = 0; i < depth; i++) {
    const wrap = rng.pick(['_and', '_or', '_not', 'parent'] as const);
    out =
      wrap === '_and' || wrap === '_or'
        ? { kind: Kind.OBJECT, fields: [objectField(wrap, { kind: Kind.LIST, values: [out] })] }
        : { kind: Kind.OBJECT, fields: [objectField(wrap, out)] };
  }
  return out;
}

/** A place in the document holding a value, with a way to replace it. */
interface ValueSlot {
  get(): ValueNode;
  set(v: ValueNode): void;
}

interface Slots {
  values: ValueSlot[];
  objectFields: Array<{ owner: { fields: readonly ObjectFieldNode[] }; index: number }>;
  args: Array<{ owner: { arguments?: readonly ArgumentNode[] }; index: number }>;
  fields: FieldNode[];
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function collect(doc: DocumentNode): Slots {
  const slots: Slots = { values: [], objectFields: [], args: [], fields: [] };
  const walkValue = (holder: ValueSlot): void => {
    slots.values.push(holder);
    const v = holder.get();
    if (v.kind === Kind.LIST) {
      v.values.forEach((_, i) => {
        const list = v.values as ValueNode[];
        walkValue({ get: () => list[i]!, set: (n) => (list[i] = n) });
      });
    } else if (v.kind === Kind.OBJECT) {
      v.fields.forEach((f, index) => {
        slots.objectFields.push({ owner: v, index });
        const field = f as Mutable<ObjectFieldNode>;
        walkValue({ get: () => field.value, set: (n) => (field.value = n) });
      });
    }
  };
  const walkSelections = (selections: readonly unknown[] | undefined): void => {
    for (const s of (selections ?? []) as Array<{ kind: string }>) {
      if (s.kind !== Kind.FIELD) {
        walkSelections((s as { selectionSet?: { selections: readonly unknown[] } }).selectionSet?.selections);
        continue;
      }
      const field = s as FieldNode;
      slots.fields.push(field);
      (field.arguments ?? []).forEach((a, index) => {
        slots.args.push({ owner: field, index });
        const arg = a as Mutable<ArgumentNode>;
        walkValue({ get: () => arg.value, set: (n) => (arg.value = n) });
      });
      walkSelections(field.selectionSet?.selections);
    }
  };
  for (const def of doc.definitions) {
    if (def.kind === Kind.OPERATION_DEFINITION || def.kind === Kind.FRAGMENT_DEFINITION) walkSelections(def.selectionSet.selections);
  }
  return slots;
}

/** A random JSON value for variables: nasty strings, huge numbers, nested containers. */
function jsonValue(rng: Rng, depth = 0): unknown {
  switch (depth > 3 ? rng.int(4) : rng.int(6)) {
    case 0:
      return nastyString(rng);
    case 1:
      return Number(rng.pick(HUGE_NUMBERS));
    case 2:
      return rng.chance(0.5) ? null : rng.chance(0.5);
    case 3:
      return rng.int(40) - 3;
    case 4:
      return Array.from({ length: rng.int(3) }, () => jsonValue(rng, depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: rng.int(3) }, () => [rng.chance(0.5) ? rng.pick(OPERATORS) : rng.pick(NAMES), jsonValue(rng, depth + 1)]));
  }
}

/** Replaces one random leaf or container inside a JSON value; returns the new value. */
function mutateJson(rng: Rng, value: unknown, depth = 0): unknown {
  if (depth > 0 && rng.chance(0.35)) return jsonValue(rng);
  if (Array.isArray(value) && value.length > 0) {
    const copy = [...value];
    const i = rng.int(copy.length);
    copy[i] = mutateJson(rng, copy[i], depth + 1);
    return copy;
  }
  if (value && typeof value === 'object' && Object.keys(value).length > 0) {
    const copy = { ...(value as Record<string, unknown>) };
    const keys = Object.keys(copy);
    const k = rng.pick(keys);
    if (rng.chance(0.2)) {
      // Swap the key for an operator or another name, keeping the value.
      const v = copy[k];
      delete copy[k];
      copy[rng.chance(0.5) ? rng.pick(OPERATORS) : rng.pick(NAMES)] = v;
    } else {
      copy[k] = mutateJson(rng, copy[k], depth + 1);
    }
    return copy;
  }
  return jsonValue(rng);
}

/** One mutation of the document; false when it found nothing to act on. */
function mutateDocument(rng: Rng, doc: DocumentNode, donor: DocumentNode | undefined): boolean {
  const s = collect(doc);
  const choice = rng.int(9);
  if (choice <= 2 && s.values.length > 0) {
    const slot = rng.pick(s.values);
    slot.set(rng.chance(0.7) ? similarValue(rng, slot.get()) : scalarValue(rng));
    return true;
  }
  if (choice === 3 && s.objectFields.length > 0) {
    const { owner, index } = rng.pick(s.objectFields);
    const field = owner.fields[index] as Mutable<ObjectFieldNode>;
    field.name = name(field.name.value.startsWith('_') || rng.chance(0.3) ? rng.pick(OPERATORS) : rng.pick(NAMES));
    return true;
  }
  if (choice === 4 && s.values.length > 0) {
    const slot = rng.pick(s.values);
    // Mostly shallow; sometimes past the engine's nesting bounds.
    slot.set(nest(rng, slot.get(), rng.chance(0.8) ? 1 + rng.int(6) : 50 + rng.int(400)));
    return true;
  }
  if (choice === 5 && (s.objectFields.length > 0 || s.args.length > 0)) {
    if (s.args.length > 0 && rng.chance(0.5)) {
      const { owner, index } = rng.pick(s.args);
      (owner.arguments as ArgumentNode[]).splice(index, 1);
    } else if (s.objectFields.length > 0) {
      const { owner, index } = rng.pick(s.objectFields);
      if (rng.chance(0.5)) (owner.fields as ObjectFieldNode[]).splice(index, 1);
      else (owner.fields as ObjectFieldNode[]).push(owner.fields[index]!); // a duplicated key
    }
    return true;
  }
  if (choice === 6 && donor && s.values.length > 0) {
    const donorValues = collect(donor).values;
    if (donorValues.length === 0) return false;
    rng.pick(s.values).set(structuredClone(rng.pick(donorValues).get()));
    return true;
  }
  if (choice === 7 && s.fields.length > 0) {
    const field = rng.pick(s.fields) as Mutable<FieldNode>;
    if (rng.chance(0.3) && field.selectionSet === undefined && field.name.value !== 'owner_id') field.name = name(rng.pick(NAMES));
    else if (rng.chance(0.5)) field.alias = name(`a${rng.int(1000)}`);
    else if (field.arguments && field.arguments.length < 6) {
      field.arguments = [...field.arguments, { kind: Kind.ARGUMENT, name: name(rng.pick(NAMES)), value: scalarValue(rng) }];
    }
    return true;
  }
  if (choice === 8 && rng.chance(0.3)) {
    const op = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as { operation: string } | undefined;
    if (!op) return false;
    op.operation = rng.pick(['query', 'mutation', 'subscription']);
    return true;
  }
  return false;
}

/** A new input derived from `input` (and sometimes `donor`), by 1 to 4 mutations. */
export function mutate(rng: Rng, input: FuzzInput, donor?: FuzzInput): FuzzInput {
  const out: FuzzInput = { query: input.query, variables: structuredClone(input.variables), as: input.as };
  // Mostly one mutation: each further one makes an input that no longer validates likelier.
  const rounds = rng.chance(0.6) ? 1 : 2 + rng.int(3);
  for (let r = 0; r < rounds; r++) {
    const kind = rng.int(12);
    if (kind === 0) {
      out.as = rng.chance(0.3) ? 'admin' : 1 + rng.int(3);
    } else if (kind <= 2 && Object.keys(out.variables).length > 0) {
      out.variables = mutateJson(rng, out.variables) as Record<string, unknown>;
    } else if (kind === 3 && rng.chance(0.5)) {
      // Text level: the parser and the lexer's escapes.
      const at = rng.int(out.query.length + 1);
      out.query = rng.chance(0.8) ? out.query.slice(0, at) + rng.pick(TEXT_INSERTS) + out.query.slice(at) : out.query.slice(0, at);
    } else {
      let doc: DocumentNode;
      try {
        doc = structuredClone(parse(out.query, { noLocation: true }));
      } catch {
        continue;
      }
      let donorDoc: DocumentNode | undefined;
      if (donor) {
        try {
          donorDoc = parse(donor.query, { noLocation: true });
        } catch {
          donorDoc = undefined;
        }
      }
      if (mutateDocument(rng, doc, donorDoc)) out.query = print(doc);
    }
  }
  return out;
}
