/**
 * Introspection answered as JSON text, straight from the schema. graphql-js's `execute` builds the
 * answer as objects first (a result object per type, field and argument, a path entry and a
 * promise check per field), then the engine stringifies it: at 1,000 tables a role's answer is tens
 * of MB of JSON, several times that in short-lived objects, and seconds of CPU. Those objects also
 * grew the process: the builds' peak went from 370 to 850 MB, and glibc kept about 100 MB of it
 * after the collection (test/bench/results, the scale run).
 *
 * The answer is the same because the values are: every field is resolved by graphql-js's own
 * introspection types (`__Schema`, `__Type`, ...) with its arguments as graphql-js coerces them,
 * fields are collected as graphql-js collects them (fragments, type conditions, `@skip` and
 * `@include`, response keys merged in order of first appearance), and leaves are serialised by
 * their types. What this does not reproduce is the error path: a resolver that throws, a null in a
 * non-null position or a variable that does not coerce gives `null`, and the caller runs graphql-js
 * instead, so errors keep its messages. The field selections of a position are collected once and
 * serve every object there (every type of the schema, every field of every type).
 */
import {
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  GraphQLBoolean,
  GraphQLIncludeDirective,
  GraphQLString,
  GraphQLSkipDirective,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  getArgumentValues,
  getDirectiveValues,
  getVariableValues,
  isAbstractType,
  isEnumType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
} from 'graphql';

/** Thrown inside the writer where graphql-js would answer with an error; the caller falls back to it. */
class NotPlain extends Error {}

type Variables = { [name: string]: unknown };

/** One response key of a selection on one object type: the field, its arguments, and what it selects. */
interface Entry {
  key: string;
  /** `"key":`, ready to write. */
  head: string;
  field: GraphQLField<unknown, unknown>;
  args: { [name: string]: unknown };
  nodes: readonly FieldNode[];
  /** The selection under this key, collected once for the object type it returns. */
  below: Plan | undefined;
  /** The writer of the field's values, made on first use. */
  write: Write | undefined;
}

interface Plan {
  type: GraphQLObjectType;
  entries: readonly Entry[];
}

interface Run {
  schema: GraphQLSchema;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  variables: Variables;
  /** What the introspection resolvers read of `info` (only `schema`). */
  info: GraphQLResolveInfo;
}

/**
 * The JSON text of each root introspection field of `document`'s operation (`__schema`, `__type`,
 * `__typename`), by response key; null when graphql-js would answer with errors.
 */
export function introspectionTexts(schema: GraphQLSchema, document: DocumentNode, rawVariables: Readonly<Record<string, unknown>> | null | undefined): Record<string, string> | null {
  let operation: OperationDefinitionNode | undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) {
    if (d.kind === Kind.OPERATION_DEFINITION) operation ??= d;
    else if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  }
  const root = operation && rootTypeOf(schema, operation);
  if (!operation || !root) return null;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], rawVariables ?? {});
  if (coerced.errors) return null;
  const run: Run = { schema, fragments, variables: coerced.coerced, info: { schema } as GraphQLResolveInfo };
  try {
    const out: Record<string, string> = {};
    for (const entry of collect(run, root, [{ selectionSet: operation.selectionSet }]).entries) {
      if (entry.field === TypeNameMetaFieldDef) {
        out[entry.key] = JSON.stringify(root.name);
        continue;
      }
      const sink = new Sink();
      writerOf(entry.field.type, entry)(run, resolved(run, undefined, entry), sink);
      out[entry.key] = sink.text();
    }
    return out;
  } catch {
    // A resolver or a serialiser that throws (graphql-js answers a field error), or NotPlain.
    return null;
  }
}

function rootTypeOf(schema: GraphQLSchema, operation: OperationDefinitionNode): GraphQLObjectType | null | undefined {
  if (operation.operation === 'query') return schema.getQueryType();
  if (operation.operation === 'mutation') return schema.getMutationType();
  return schema.getSubscriptionType();
}

/** A selection of `type` over these nodes' selection sets, as graphql-js's collectFields makes it. */
function collect(run: Run, type: GraphQLObjectType, nodes: readonly { selectionSet?: SelectionSetNode | undefined }[]): Plan {
  const byKey = new Map<string, FieldNode[]>();
  const visited = new Set<string>();
  for (const node of nodes) if (node.selectionSet) collectInto(run, type, node.selectionSet, byKey, visited);
  const entries: Entry[] = [];
  for (const [key, fieldNodes] of byKey) {
    const node = fieldNodes[0]!;
    const field = fieldOf(run.schema, type, node.name.value);
    if (!field) continue; // graphql-js skips a field the type does not have (validation refused it already)
    entries.push({ key, head: `${JSON.stringify(key)}:`, field, args: getArgumentValues(field, node, run.variables), nodes: fieldNodes, below: undefined, write: undefined });
  }
  return { type, entries };
}

function collectInto(run: Run, type: GraphQLObjectType, set: SelectionSetNode, byKey: Map<string, FieldNode[]>, visited: Set<string>): void {
  for (const s of set.selections) {
    if (!included(run, s.directives)) continue;
    if (s.kind === Kind.FIELD) {
      const key = s.alias?.value ?? s.name.value;
      const list = byKey.get(key);
      if (list) list.push(s);
      else byKey.set(key, [s]);
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      if (s.typeCondition && !conditionMatches(run.schema, s.typeCondition.name.value, type)) continue;
      collectInto(run, type, s.selectionSet, byKey, visited);
    } else {
      const name = s.name.value;
      if (visited.has(name)) continue;
      visited.add(name);
      const fragment = run.fragments.get(name);
      if (!fragment || !conditionMatches(run.schema, fragment.typeCondition.name.value, type)) continue;
      collectInto(run, type, fragment.selectionSet, byKey, visited);
    }
  }
}

function included(run: Run, directives: readonly DirectiveNode[] | undefined): boolean {
  if (!directives || directives.length === 0) return true;
  const node = { directives };
  if (getDirectiveValues(GraphQLSkipDirective, node, run.variables)?.['if'] === true) return false;
  const include = getDirectiveValues(GraphQLIncludeDirective, node, run.variables);
  return include === undefined || include['if'] !== false;
}

function conditionMatches(schema: GraphQLSchema, condition: string, type: GraphQLObjectType): boolean {
  const t = schema.getType(condition);
  if (t === type) return true;
  return t !== undefined && isAbstractType(t) && schema.isSubType(t, type);
}

function fieldOf(schema: GraphQLSchema, type: GraphQLObjectType, name: string): GraphQLField<unknown, unknown> | undefined {
  if (name === '__typename') return TypeNameMetaFieldDef;
  if (type === schema.getQueryType()) {
    if (name === '__schema') return SchemaMetaFieldDef;
    if (name === '__type') return TypeMetaFieldDef;
  }
  return type.getFields()[name];
}

/** Every introspection field has its resolver; the property is what graphql-js's default one reads. */
function resolved(run: Run, source: unknown, entry: Entry): unknown {
  const resolve = entry.field.resolve;
  return resolve ? resolve(source, entry.args, undefined, run.info) : (source as Record<string, unknown>)[entry.field.name];
}

/**
 * The answer's text. Concatenated as one string, the answer was a rope of millions of small
 * pieces, all alive until the end: every scavenge copied them. Here pieces gather in a short list
 * that is joined into a flat block every few thousand pieces (the pieces die young), and the
 * blocks are joined once at the end, into one flat string (a growing Buffer, tried first, was as
 * fast but took its memory from malloc, and was copied on each growth and once more into the text).
 */
class Sink {
  private pieces: string[] = [];
  private readonly blocks: string[] = [];

  add(piece: string): void {
    if (this.pieces.push(piece) >= 4096) this.flush();
  }

  text(): string {
    this.flush();
    return this.blocks.length === 1 ? this.blocks[0]! : this.blocks.join('');
  }

  private flush(): void {
    if (this.pieces.length === 0) return;
    this.blocks.push(this.pieces.join(''));
    this.pieces = [];
  }
}

/** Writes one value of a position. */
type Write = (run: Run, value: unknown, out: Sink) => void;

/**
 * The writer of `type`'s values at `entry`'s position, the way graphql-js completes them when
 * nothing fails; made once per position (the type's wrappers and kind are looked at once, not for
 * every value written there).
 */
function writerOf(type: GraphQLOutputType, entry: Entry): Write {
  if (isNonNullType(type)) {
    const inner = nullableWriter(type.ofType, entry);
    return (run, value, out) => {
      if (value == null) throw new NotPlain();
      inner(run, value, out);
    };
  }
  const inner = nullableWriter(type, entry);
  return (run, value, out) => {
    if (value == null) out.add('null');
    else inner(run, value, out);
  };
}

function nullableWriter(type: GraphQLOutputType, entry: Entry): Write {
  if (isListType(type)) {
    const item = writerOf(type.ofType, entry);
    return (run, value, out) => {
      if (!Array.isArray(value)) throw new NotPlain();
      out.add('[');
      for (let i = 0; i < value.length; i++) {
        if (i > 0) out.add(',');
        item(run, value[i], out);
      }
      out.add(']');
    };
  }
  if (isEnumType(type)) {
    // A kind or a directive location, written millions of times: each value's text is made once.
    const texts = new Map<unknown, string>();
    return (_run, value, out) => {
      let text = texts.get(value);
      if (text === undefined) {
        const serialized: unknown = type.serialize(value);
        if (serialized == null) throw new NotPlain();
        texts.set(value, (text = JSON.stringify(serialized)));
      }
      out.add(text);
    };
  }
  if (isLeafType(type)) {
    // String and Boolean serialise their own values unchanged: the common case skips the call.
    const plain = type === GraphQLString ? 'string' : type === GraphQLBoolean ? 'boolean' : null;
    return (_run, value, out) => {
      if (typeof value === plain) {
        out.add(JSON.stringify(value));
        return;
      }
      const serialized: unknown = type.serialize(value);
      if (serialized == null) throw new NotPlain();
      out.add(JSON.stringify(serialized));
    };
  }
  if (!isObjectType(type) || !type.name.startsWith('__')) {
    return () => {
      throw new NotPlain();
    };
  }
  return (run, value, out) => writeObject(run, value, (entry.below ??= collect(run, type, entry.nodes)), out);
}

function writeObject(run: Run, source: unknown, plan: Plan, out: Sink): void {
  out.add('{');
  const entries = plan.entries;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (i > 0) out.add(',');
    out.add(entry.head);
    if (entry.field === TypeNameMetaFieldDef) out.add(JSON.stringify(plan.type.name));
    else (entry.write ??= writerOf(entry.field.type, entry))(run, resolved(run, source, entry), out);
  }
  out.add('}');
}
