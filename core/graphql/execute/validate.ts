/**
 * Parses and validates a GraphQL document against a role's schema, reporting errors the way the
 * reference engine does: `validation-failed` with a path such as `$.selectionSet.author.selectionSet.x`
 * for an unknown field, and graphql-js's own message for the other rules.
 */
import {
  GraphQLError,
  Kind,
  TypeInfo,
  getNamedType,
  isEnumType,
  isInputObjectType,
  parse,
  specifiedRules,
  validate,
  visit,
  visitWithTypeInfo,
  type ASTVisitor,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
import { EngineError } from '../../errors.js';
import { graphqlDeeperThan, MAX_GRAPHQL_DEPTH, MAX_GRAPHQL_TOKENS } from '../../http/nesting.js';

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
        if (parent && !typeInfo.getFieldDef() && !node.name.value.startsWith('__')) {
          return fail(`field '${node.name.value}' not found in type: '${parent.name}'`);
        }
        return undefined;
      },
      leave() {
        path.splice(-2, 2);
      },
    },
    Argument: {
      enter(node) {
        path.push('args', node.name.value);
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
        return fail(`unexpected value "${node.value}" for enum: '${named.name}'`);
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

export function validateDocument(schema: GraphQLSchema, document: DocumentNode): void {
  const unknown = unknownFieldCheck(schema, document);
  if (unknown) throw unknown;
  const errors = validate(schema, document, specifiedRules);
  if (errors.length > 0) {
    const first = errors[0]!;
    throw new EngineError('validation-failed', first.message, { path: '$' });
  }
}

export function hasOperations(document: DocumentNode): boolean {
  return document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION);
}
