/**
 * A role's GraphQLSchema whose types are built as requests reach them.
 *
 * graphql-js's GraphQLSchema constructor collects every type reachable from the roots, which
 * calls every type's fields thunk: at 1,000 related tables a role's first query built some 33,000
 * types (fields, arguments, validation) to answer a query that touches five of them. Our types
 * are made lazily already (registry.ts: fields are thunks); only the constructor forced them.
 *
 * This schema is a GraphQLSchema (graphql-js's `validate`, TypeInfo, `getVariableValues` and the
 * planner take it as one) whose type map answers by name from the types reached so far, without
 * building the rest:
 *
 * - a name is known when a root, an extra type of the draft, an introspection type, or a type
 *   referenced by the fields or arguments of an already built type carries it: exactly the types
 *   the complete schema would hold, found without building any;
 * - `reach(document)` builds the types a document's selections and argument literals pass
 *   through before it is validated, so that the names its variables and fragments use are known;
 * - anything else — a name not reached (misspelt, or only reachable through unbuilt types),
 *   enumerating the type map (introspection, printing the SDL, a "did you mean" list), abstract
 *   types' possible types, `toConfig` — completes the schema first: the ordinary GraphQLSchema over
 *   the same type objects, validated as before (`complete`), and from then on every answer is
 *   that schema's.
 *
 * So a request sees the same types and the same answers as on the complete schema; what changes
 * is when a broken type is reported: when the schema is completed (the first introspection, or a
 * request naming an unreached type), not at the role's first query. Types are generated and name
 * clashes removed before assembly (schema-cache/resolve/conflicts.ts), so that is a safety net.
 */
import {
  GraphQLObjectType,
  GraphQLSchema,
  OperationTypeNode,
  GraphQLBoolean,
  GraphQLString,
  Kind,
  getNamedType,
  introspectionTypes,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isUnionType,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLAbstractType,
  type GraphQLField,
  type GraphQLFieldMap,
  type GraphQLInputType,
  type GraphQLInterfaceType,
  type GraphQLNamedType,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import type { RootFieldEntry } from '../schema-draft.js';

export interface LazySchemaParts {
  query: GraphQLObjectType;
  mutation: GraphQLObjectType | null;
  subscription: GraphQLObjectType | null;
  /** Types the schema holds beside those its roots reach (GraphQLSchemaConfig.types). */
  types: readonly GraphQLNamedType[];
}

/** Builds, validates and finishes the complete schema over the parts (assemble.ts). */
export type CompleteSchema = (parts: LazySchemaParts) => GraphQLSchema;

type TypeMap = ReturnType<GraphQLSchema['getTypeMap']>;

/**
 * Brands instead of `instanceof`: a process may load this module twice (through CommonJS and ESM,
 * or from two copies of the package), and a schema made by one copy must still be known as lazy by
 * the other; otherwise validation quietly builds every schema whole.
 */
const LAZY_SCHEMA = Symbol.for('svc-graphql-engine.lazy-role-schema');
const LAZY_ROOT = Symbol.for('svc-graphql-engine.lazy-root-type');

export function isLazyRoleSchema(schema: GraphQLSchema): schema is LazyRoleSchema {
  return (schema as { [LAZY_SCHEMA]?: boolean })[LAZY_SCHEMA] === true;
}

export function isLazyRootType(type: GraphQLNamedType): type is LazyRootType {
  return (type as { [LAZY_ROOT]?: boolean })[LAZY_ROOT] === true;
}

export class LazyRoleSchema extends GraphQLSchema {
  readonly [LAZY_SCHEMA] = true;
  private full: GraphQLSchema | null = null;
  /** Types known to be in the schema, by name. */
  private readonly known = new Map<string, GraphQLNamedType>();
  /** Known types whose references are not recorded yet (their fields were not built when last looked at). */
  private unrecorded: GraphQLNamedType[] = [];
  /** How many of a root type's built fields were recorded. */
  private readonly rootFieldsRecorded = new Map<LazyRootType, number>();
  private readonly typeMapView: TypeMap;

  constructor(
    private readonly parts: LazySchemaParts,
    private readonly completeWith: CompleteSchema,
  ) {
    // Without roots the constructor collects only the introspection types; `assumeValid` marks
    // it valid: the complete schema is validated when it is built.
    super({ assumeValid: true });
    for (const type of [parts.query, parts.mutation, parts.subscription, ...parts.types, ...introspectionTypes, GraphQLString, GraphQLBoolean]) {
      if (type) this.know(type);
    }
    this.typeMapView = new Proxy(Object.create(null) as TypeMap, {
      get: (_, key) => (typeof key === 'string' ? this.getType(key) : undefined),
      has: (_, key) => typeof key === 'string' && this.getType(key) !== undefined,
      ownKeys: () => Reflect.ownKeys(this.complete().getTypeMap()),
      getOwnPropertyDescriptor: (_, key) => Object.getOwnPropertyDescriptor(this.complete().getTypeMap(), key),
      set: () => false,
      defineProperty: () => false,
      deleteProperty: () => false,
    });
  }

  /** Whether the complete schema was built (every type made and validated). */
  get completed(): boolean {
    return this.full !== null;
  }

  /** The ordinary GraphQLSchema over the same types, built once. */
  complete(): GraphQLSchema {
    if (this.full) return this.full;
    this.full = this.completeWith(this.parts);
    // Every answer is the complete schema's from now on.
    this.known.clear();
    this.unrecorded = [];
    this.rootFieldsRecorded.clear();
    return this.full;
  }

  override getQueryType(): GraphQLObjectType {
    return this.parts.query;
  }

  override getMutationType(): GraphQLObjectType | undefined {
    return this.parts.mutation ?? undefined;
  }

  override getSubscriptionType(): GraphQLObjectType | undefined {
    return this.parts.subscription ?? undefined;
  }

  override getRootType(operation: OperationTypeNode): GraphQLObjectType | undefined {
    if (operation === OperationTypeNode.QUERY) return this.getQueryType();
    if (operation === OperationTypeNode.MUTATION) return this.getMutationType();
    return this.getSubscriptionType();
  }

  override getTypeMap(): TypeMap {
    return this.full ? this.full.getTypeMap() : this.typeMapView;
  }

  override getType(name: string): GraphQLNamedType | undefined {
    if (this.full) return this.full.getType(name);
    return this.known.get(name) ?? this.recordReferences(name) ?? this.complete().getType(name);
  }

  override getPossibleTypes(abstractType: GraphQLAbstractType): readonly GraphQLObjectType[] {
    return this.complete().getPossibleTypes(abstractType);
  }

  override getImplementations(interfaceType: GraphQLInterfaceType): ReturnType<GraphQLSchema['getImplementations']> {
    return this.complete().getImplementations(interfaceType);
  }

  override isSubType(abstractType: GraphQLAbstractType, maybeSubType: GraphQLObjectType | GraphQLInterfaceType): boolean {
    return this.complete().isSubType(abstractType, maybeSubType);
  }

  override toConfig(): ReturnType<GraphQLSchema['toConfig']> {
    return this.complete().toConfig();
  }

  /**
   * Builds the types the document's selections and argument literals pass through (and the
   * types their fields name), so that validating and planning it finds the names it uses known.
   * Unknown fields and arguments are skipped: validation reports them.
   */
  reach(document: DocumentNode): void {
    if (this.full) return;
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    const visited = new Set<string>();
    const selections = (type: GraphQLNamedType | undefined, set: SelectionSetNode): void => {
      if (!type) return;
      const fields = isObjectType(type) || isInterfaceType(type) ? type.getFields() : undefined;
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          const field = fields?.[selection.name.value];
          if (!field) continue;
          for (const arg of selection.arguments ?? []) {
            const def = field.args.find((a) => a.name === arg.name.value);
            if (def) value(def.type, arg.value);
          }
          if (selection.selectionSet) selections(getNamedType(field.type), selection.selectionSet);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          const condition = selection.typeCondition ? this.knownType(selection.typeCondition.name.value) : type;
          selections(condition, selection.selectionSet);
        } else {
          const fragment = fragments.get(selection.name.value);
          // Each fragment once per type it is spread in: fragment cycles are validation's to report.
          const key = `${selection.name.value}\u0000${type.name}`;
          if (!fragment || visited.has(key)) continue;
          visited.add(key);
          selections(this.knownType(fragment.typeCondition.name.value), fragment.selectionSet);
        }
      }
    };
    const value = (type: GraphQLInputType, node: ValueNode): void => {
      const named = getNamedType(type);
      if (!isInputObjectType(named)) return;
      if (node.kind === Kind.LIST) {
        for (const item of node.values) value(type, item);
      } else if (node.kind === Kind.OBJECT) {
        const fields = named.getFields();
        for (const f of node.fields) {
          const def = fields[f.name.value];
          if (def) value(def.type, f.value);
        }
      }
    };
    for (const d of document.definitions) {
      if (d.kind === Kind.OPERATION_DEFINITION) selections(this.getRootType(d.operation), d.selectionSet);
    }
  }

  /** A type the schema holds, without completing it for a name it does not (validation reports those). */
  private knownType(name: string): GraphQLNamedType | undefined {
    return this.known.get(name) ?? this.recordReferences(name);
  }

  private know(type: GraphQLNamedType): void {
    if (this.known.has(type.name)) return;
    this.known.set(type.name, type);
    this.unrecorded.push(type);
  }

  /**
   * Records the references of the known types built since last time (and of those they reach,
   * when built), then answers `name` if that made it known. Unbuilt types wait for a later call.
   */
  private recordReferences(name: string): GraphQLNamedType | undefined {
    let progressed = true;
    while (progressed && !this.known.has(name)) {
      progressed = false;
      const waiting = this.unrecorded;
      this.unrecorded = [];
      for (const type of waiting) {
        if (isLazyRootType(type)) {
          // A root type gains fields as they are read: it stays waiting for the next ones.
          this.unrecorded.push(type);
          const from = this.rootFieldsRecorded.get(type) ?? 0;
          if (type.built.length === from) continue;
          progressed = true;
          for (const field of type.built.slice(from)) for (const ref of fieldReferences(field)) this.know(ref);
          this.rootFieldsRecorded.set(type, type.built.length);
          continue;
        }
        if (!isBuilt(type)) {
          this.unrecorded.push(type);
          continue;
        }
        progressed = true;
        for (const ref of referencedTypes(type)) this.know(ref);
      }
    }
    return this.known.get(name);
  }
}

/**
 * A root type whose fields are built one by one as they are read: a schema over 1,000 tables has
 * thousands of root fields and a request reads a few. Listing them (introspection, completing the
 * schema) builds them all, in name order, the order introspection gives them in.
 */
export class LazyRootType extends GraphQLObjectType {
  readonly [LAZY_ROOT] = true;
  /** The fields built so far, in the order they were (LazyRoleSchema records what they name). */
  readonly built: GraphQLField<unknown, unknown>[] = [];
  private fieldMap: GraphQLFieldMap<unknown, unknown> | null = null;

  /** `entries` is read when the fields are first asked for: namespaces gain fields from later sources until then. */
  constructor(
    name: string,
    description: string | undefined,
    private readonly entries: ReadonlyMap<string, RootFieldEntry>,
  ) {
    super({ name, description, fields: {} });
  }

  override getFields(): GraphQLFieldMap<unknown, unknown> {
    if (this.fieldMap) return this.fieldMap;
    const map = Object.create(null) as GraphQLFieldMap<unknown, unknown>;
    for (const name of [...this.entries.keys()].sort()) {
      Object.defineProperty(map, name, {
        enumerable: true,
        configurable: true,
        get: () => {
          const field = this.define(name);
          Object.defineProperty(map, name, { value: field, enumerable: true, configurable: true, writable: true });
          return field;
        },
      });
    }
    this.fieldMap = map;
    return map;
  }

  private define(name: string): GraphQLField<unknown, unknown> {
    // graphql-js defines fields (arguments, defaults, checks) as part of a type: a type of this one field defines it.
    const field = new GraphQLObjectType({ name: this.name, fields: { [name]: this.entries.get(name)!.config } }).getFields()[name]!;
    this.built.push(field);
    return field;
  }
}

/**
 * Whether a type's thunks have run (graphql-js 16 keeps a thunk in `_fields` / `_types` until the
 * first `getFields()` / `getTypes()`). Reading its references then builds nothing.
 */
function isBuilt(type: GraphQLNamedType): boolean {
  if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) return typeof (type as unknown as { _fields: unknown })._fields !== 'function';
  if (isUnionType(type)) return typeof (type as unknown as { _types: unknown })._types !== 'function';
  return true;
}

function referencedTypes(type: GraphQLNamedType): GraphQLNamedType[] {
  const out: GraphQLNamedType[] = [];
  if (isObjectType(type) || isInterfaceType(type)) {
    for (const iface of type.getInterfaces()) out.push(iface);
    for (const field of Object.values(type.getFields())) out.push(...fieldReferences(field));
  } else if (isInputObjectType(type)) {
    for (const field of Object.values(type.getFields())) out.push(getNamedType(field.type));
  } else if (isUnionType(type)) {
    out.push(...type.getTypes());
  }
  return out;
}

function fieldReferences(field: GraphQLField<unknown, unknown>): GraphQLNamedType[] {
  return [getNamedType(field.type), ...field.args.map((arg) => getNamedType(arg.type))];
}
