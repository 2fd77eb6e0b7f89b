/**
 * Parses and validates a GraphQL document against a role's schema, reporting errors the way the
 * reference engine does: `validation-failed` with a path such as `$.selectionSet.author.selectionSet.x`
 * for an unknown field, and graphql-js's own message for the other rules.
 */
import {
  GraphQLError,
  Kind,
  TypeInfo,
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

export function parseDocument(query: string): DocumentNode {
  try {
    return parse(query, { noLocation: false });
  } catch (e) {
    const message = e instanceof GraphQLError ? e.message : String(e);
    throw new EngineError('validation-failed', `not a valid graphql query: ${message}`, { path: '$.query' });
  }
}

/** Unknown fields, with the reference engine's message and a path through the selection sets. */
function unknownFieldCheck(schema: GraphQLSchema, document: DocumentNode): EngineError | null {
  const typeInfo = new TypeInfo(schema);
  const path: string[] = ['$'];
  let found: EngineError | null = null;
  const visitor: ASTVisitor = {
    Field: {
      enter(node) {
        path.push('selectionSet', node.name.value);
        if (found) return false;
        const parent = typeInfo.getParentType();
        if (parent && !typeInfo.getFieldDef() && !node.name.value.startsWith('__')) {
          found = new EngineError('validation-failed', `field '${node.name.value}' not found in type: '${parent.name}'`, {
            path: path.join('.'),
          });
          return false;
        }
        return undefined;
      },
      leave() {
        path.splice(-2, 2);
      },
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
