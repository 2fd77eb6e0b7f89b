/**
 * The variables of a REST call, merged as the reference engine does: the query string first, then
 * the keys of a JSON-object body, then the path parameters (later wins). A name the query does not
 * declare is refused; values from the URL are text and are coerced by the declared type: lists are
 * not supported there, an empty value is `true` for a Boolean and null for a nullable type,
 * Boolean and number types are read as JSON, everything else stays a string.
 */
import { Kind, type OperationDefinitionNode, type TypeNode } from 'graphql';
import {
  EngineError,
} from '../../../core/sdk/index.js';

/** Scalars whose URL text is read as JSON (a number or a boolean). */
const JSON_SCALARS = new Set(['Boolean', 'Int', 'Float', 'numeric', 'bigint', 'smallint', 'float8', 'float4', 'integer', 'Double']);

const namedType = (t: TypeNode): string => (t.kind === Kind.NAMED_TYPE ? t.name.value : namedType(t.type));
const isList = (t: TypeNode): boolean => (t.kind === Kind.NON_NULL_TYPE ? isList(t.type) : t.kind === Kind.LIST_TYPE);

function fromUrlText(name: string, text: string, type: TypeNode): unknown {
  if (isList(type)) {
    throw new EngineError(
      'bad-request',
      `List variables are not currently supported in URL or Query parameters. (Variable ${name}, with value ${text})`,
      { path: '$' },
    );
  }
  const scalar = namedType(type);
  if (text === '') {
    if (scalar === 'Boolean') return true;
    if (type.kind !== Kind.NON_NULL_TYPE) return null;
    return text;
  }
  if (!JSON_SCALARS.has(scalar)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Left as text: variable coercion then names the type it expected.
    return text;
  }
}

export function restVariables(
  operation: OperationDefinitionNode,
  query: ReadonlyMap<string, string>,
  body: Readonly<Record<string, unknown>>,
  params: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const declared = new Map((operation.variableDefinitions ?? []).map((d) => [d.variable.name.value, d.type] as const));
  const typeOf = (name: string): TypeNode => {
    const t = declared.get(name);
    if (!t) throw new EngineError('bad-request', `Unexpected variable ${name}`, { path: '$' });
    return t;
  };
  const out: Record<string, unknown> = {};
  for (const [name, text] of query) out[name] = fromUrlText(name, text, typeOf(name));
  for (const [name, value] of Object.entries(body)) {
    typeOf(name);
    out[name] = value;
  }
  for (const [name, text] of Object.entries(params)) out[name] = fromUrlText(name, text, typeOf(name));
  return out;
}
