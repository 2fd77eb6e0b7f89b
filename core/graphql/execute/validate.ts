/**
 * Parses and validates a GraphQL document against a role's schema, reporting errors the way the
 * reference engine's parsers do, field by field in document order: `validation-failed` with a path
 * such as `$.selectionSet.author.selectionSet.x` and its messages for unknown fields, arguments and
 * input fields, missing or misplaced selection sets, missing required arguments and literal values
 * of the wrong type (./validate-values.ts); graphql-js's own message for the other rules.
 */
import {
  GraphQLError,
  Kind,
  TypeInfo,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isNonNullType,
  parse,
  SingleFieldSubscriptionsRule,
  KnownTypeNamesRule,
  specifiedRules,
  validate,
  visit,
  visitWithTypeInfo,
  type ASTVisitor,
  type DirectiveNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { EngineError } from '../../errors.js';
import { graphqlDeeperThan, MAX_GRAPHQL_DEPTH, MAX_GRAPHQL_TOKENS } from '../../http/nesting.js';
import { literalValueProblem } from './validate-values.js';
import { isLazyRoleSchema } from '../schema/lazy-schema.js';
import { KnownTypeNamesByLookupRule } from './known-type-names.js';

/**
 * Bounded before anything recursive runs: nesting by a linear scan, size by graphql-js's token
 * limit. Past either, a `validation-failed` error instead of a stack overflow or a parse that
 * takes seconds.
 */
export function parseDocument(query: string): DocumentNode {
  if (graphqlDeeperThan(query, MAX_GRAPHQL_DEPTH)) {
    throw new EngineError('validation-failed', `the query is nested deeper than ${MAX_GRAPHQL_DEPTH} levels`, { path: '$.query' });
  }
  try {
    return parse(query, { noLocation: false, maxTokens: MAX_GRAPHQL_TOKENS });
  } catch (e) {
    const message = e instanceof GraphQLError ? e.message : String(e);
    throw new EngineError('validation-failed', `not a valid graphql query: ${message}`, { path: '$.query' });
  }
}

/**
 * Unknown fields and input fields, with the reference engine's message and a path through the
 * selection sets and arguments, e.g. `$.selectionSet.author.args.where.secret`.
 */
function unknownFieldCheck(schema: GraphQLSchema, document: DocumentNode): EngineError | null {
  const typeInfo = new TypeInfo(schema);
  const path: string[] = ['$'];
  let found: EngineError | null = null;
  const fail = (message: string, extra: string[] = []): false => {
    found = new EngineError('validation-failed', message, { path: [...path, ...extra].join('.') });
    return false;
  };
  const visitor: ASTVisitor = {
    Field: {
      enter(node) {
        path.push('selectionSet', node.name.value);
        if (found) return false;
        const parent = typeInfo.getParentType();
        const def = typeInfo.getFieldDef();
        if (parent && !def && !node.name.value.startsWith('__')) {
          return fail(`field '${node.name.value}' not found in type: '${parent.name}'`);
        }
        if (!def) return undefined;
        if (isLeafType(getNamedType(def.type)) && node.selectionSet) return fail('unexpected subselection set for non-object field');
        for (const arg of node.arguments ?? []) {
          if (!def.args.some((a) => a.name === arg.name.value)) return fail(`'${def.name}' has no argument named '${arg.name.value}'`);
        }
        for (const a of def.args) {
          if (isNonNullType(a.type) && a.defaultValue === undefined && !node.arguments?.some((arg) => arg.name.value === a.name)) {
            return fail(`missing required field '${a.name}'`, ['args', a.name]);
          }
        }
        return undefined;
      },
      leave(node) {
        // After the arguments, as the reference parses them before the selection set.
        const def = typeInfo.getFieldDef();
        if (!found && def && !node.selectionSet && !isLeafType(getNamedType(def.type))) {
          fail(`missing selection set for '${getNamedType(def.type).name}'`, ['selectionSet']);
        }
        path.splice(-2, 2);
      },
    },
    Argument: {
      enter(node) {
        path.push('args', node.name.value);
        if (found) return false;
        const arg = typeInfo.getArgument();
        const problem = arg ? literalValueProblem(arg.type, node.value) : null;
        if (problem) {
          // List indexes attach to the segment before them, as in `$.args.objects[1].name`.
          const extra: string[] = [];
          for (const seg of problem.at) {
            if (seg.startsWith('[') && extra.length > 0) extra[extra.length - 1] += seg;
            else if (seg.startsWith('[')) path[path.length - 1] += seg;
            else extra.push(seg);
          }
          return fail(problem.message, extra);
        }
        return undefined;
      },
      leave() {
        path.splice(-2, 2);
      },
    },
    ObjectField: {
      enter(node) {
        if (found) return false;
        const parent = typeInfo.getParentInputType();
        const named = parent ? getNamedType(parent) : undefined;
        if (named && isInputObjectType(named) && !named.getFields()[node.name.value]) {
          return fail(`field '${node.name.value}' not found in type: '${named.name}'`, [node.name.value]);
        }
        path.push(node.name.value);
        return undefined;
      },
      leave() {
        path.pop();
      },
    },
    EnumValue(node) {
      if (found) return false;
      const type = typeInfo.getInputType();
      const named = type ? getNamedType(type) : undefined;
      if (named && isEnumType(named) && !named.getValue(node.value)) {
        const names = named.getValues().map((v) => `'${v.name}'`).join(', ');
        return fail(`expected one of the values [${names}] for type '${named.name}', but found '${node.value}'`);
      }
      return undefined;
    },
    FragmentDefinition: {
      enter(node) {
        path.length = 1;
        path.push(`fragment ${node.name.value}`);
      },
      leave() {
        path.length = 1;
      },
    },
  };
  visit(document, visitWithTypeInfo(typeInfo, visitor));
  return found;
}

/**
 * `@_multiple_top_level_fields` on a subscription lets it select several root fields, as the
 * reference engine allows (which calls it unsupported, for its tests); without it a subscription
 * with more than one is refused with the reference's message. The directive is not in the schema
 * (the reference does not list it either), so graphql-js's unknown-directive error for it, in that
 * place only, is dropped.
 */
export const MULTIPLE_TOP_LEVEL_FIELDS = '_multiple_top_level_fields';
// KnownTypeNamesRule lists every type name up front; the by-lookup rule asks for each name it meets.
const RULES = specifiedRules
  .filter((r) => r !== SingleFieldSubscriptionsRule)
  .map((r) => (r === KnownTypeNamesRule ? KnownTypeNamesByLookupRule : r));

const allowsMultipleRootFields = (op: OperationDefinitionNode): boolean =>
  op.operation === 'subscription' && (op.directives ?? []).some((d) => d.name.value === MULTIPLE_TOP_LEVEL_FIELDS);

/** Response keys of a root selection set, fragments inlined (a fragment is expanded once). */
function rootKeys(set: SelectionSetNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, keys: Set<string>, seen: Set<string>): void {
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) keys.add((s.alias ?? s.name).value);
    else if (s.kind === Kind.INLINE_FRAGMENT) rootKeys(s.selectionSet, fragments, keys, seen);
    else if (!seen.has(s.name.value)) {
      seen.add(s.name.value);
      const f = fragments.get(s.name.value);
      if (f) rootKeys(f.selectionSet, fragments, keys, seen);
    }
  }
}

function checkSubscriptionRootFields(document: DocumentNode): void {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION || d.operation !== 'subscription' || allowsMultipleRootFields(d)) continue;
    const keys = new Set<string>();
    rootKeys(d.selectionSet, fragments, keys, new Set());
    if (keys.size > 1) throw new EngineError('validation-failed', 'subscriptions must select one top level field', { path: '$' });
  }
}

export function validateDocument(schema: GraphQLSchema, document: DocumentNode): void {
  // The types the document passes through are built first, so the names it uses are found (lazy-schema.ts).
  if (isLazyRoleSchema(schema)) schema.reach(document);
  const unknown = unknownFieldCheck(schema, document);
  if (unknown) throw unknown;
  const allowed = new Set<DirectiveNode>();
  for (const d of document.definitions) {
    if (d.kind === Kind.OPERATION_DEFINITION && allowsMultipleRootFields(d)) {
      for (const dir of d.directives ?? []) if (dir.name.value === MULTIPLE_TOP_LEVEL_FIELDS) allowed.add(dir);
    }
  }
  const errors = validate(schema, document, RULES).filter((e) => !(e.nodes?.length === 1 && allowed.has(e.nodes[0] as DirectiveNode)));
  if (errors.length > 0) {
    const first = errors[0]!;
    throw new EngineError('validation-failed', first.message, { path: '$' });
  }
  checkSubscriptionRootFields(document);
}

export function hasOperations(document: DocumentNode): boolean {
  return document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION);
}
