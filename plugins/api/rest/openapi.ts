/**
 * The OpenAPI 3.0 document of every REST endpoint (`GET /api/swagger/json`), shaped as the
 * reference's: one path per endpoint URL (`:id` written `{id}`), one operation per method with the
 * endpoint's name as summary and its comment plus the GraphQL query as description, a parameter
 * per scalar variable (in the path for URL parameters, the query string otherwise) and the admin
 * secret header, a JSON request body for POST/PUT/PATCH, and the response schema derived from the
 * query's selection set against the admin schema.
 */
import {
  GraphQLNonNull,
  Kind,
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isInterfaceType,
  isScalarType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
  type FragmentDefinitionNode,
  type TypeNode,
} from 'graphql';
import type { ResolvedEndpoint } from '../../metadata/rest-endpoints/resolve.js';

type Schema = Record<string, unknown>;

const SCALAR_SCHEMAS: Readonly<Record<string, Schema>> = {
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Double: { type: 'number' },
  Boolean: { type: 'boolean' },
  String: { type: 'string' },
  ID: { type: 'string' },
  uuid: { type: 'string', format: 'uuid' },
};

function scalarSchema(name: string): Schema {
  return SCALAR_SCHEMAS[name] ?? {};
}

function selectionSchema(
  type: GraphQLOutputType,
  set: SelectionSetNode | undefined,
  fragments: Record<string, FragmentDefinitionNode>,
): Schema {
  if (isNonNullType(type)) return selectionSchema(type.ofType, set, fragments);
  const nullable = (s: Schema): Schema => ({ ...s, nullable: true });
  if (isListType(type)) return nullable({ type: 'array', items: selectionSchema(type.ofType, set, fragments) });
  const named = getNamedType(type);
  if (isScalarType(named)) return nullable(scalarSchema(named.name));
  if (isEnumType(named)) return nullable({ type: 'string', enum: named.getValues().map((v) => v.name) });
  const properties: Record<string, Schema> = {};
  const visitSet = (s: SelectionSetNode | undefined): void => {
    for (const sel of s?.selections ?? []) {
      if (sel.kind === Kind.FIELD) {
        const key = sel.alias?.value ?? sel.name.value;
        if (sel.name.value === '__typename') properties[key] = { type: 'string' };
        else if (isObjectType(named) || isInterfaceType(named)) {
          const field = named.getFields()[sel.name.value];
          properties[key] = field ? selectionSchema(field.type, sel.selectionSet, fragments) : {};
        }
      } else if (sel.kind === Kind.INLINE_FRAGMENT) visitSet(sel.selectionSet);
      else visitSet(fragments[sel.name.value]?.selectionSet);
    }
  };
  visitSet(set);
  return nullable({ type: 'object', properties });
}

const typeNodeName = (t: TypeNode): string => (t.kind === Kind.NAMED_TYPE ? t.name.value : typeNodeName(t.type));
const isListNode = (t: TypeNode): boolean => (t.kind === Kind.NON_NULL_TYPE ? isListNode(t.type) : t.kind === Kind.LIST_TYPE);

function endpointOperation(e: ResolvedEndpoint, method: string, schema: GraphQLSchema): Schema {
  const pathParams = new Set(e.segments.flatMap((s) => (s.kind === 'param' ? [s.name] : [])));
  const parameters: Schema[] = [
    { in: 'header', name: 'x-svc-admin-secret', description: 'Your x-svc-admin-secret will be used for authentication of the API request.', schema: { type: 'string' } },
  ];
  const bodyProperties: Record<string, Schema> = {};
  const definitions = new Map((e.operation.variableDefinitions ?? []).map((d) => [d.variable.name.value, d] as const));
  // Every URL parameter is declared (OpenAPI requires it), typed by its variable when the type is known.
  for (const name of pathParams) {
    const def = definitions.get(name);
    const known = def && !isListNode(def.type) ? SCALAR_SCHEMAS[typeNodeName(def.type)] : undefined;
    parameters.push({ in: 'path', name, required: true, schema: known ?? { type: 'string' } });
  }
  for (const [name, def] of definitions) {
    if (pathParams.has(name)) continue;
    const scalar = typeNodeName(def.type);
    const known = SCALAR_SCHEMAS[scalar];
    bodyProperties[name] = isListNode(def.type) ? { type: 'array', items: scalarSchema(scalar) } : scalarSchema(scalar);
    if (!known || isListNode(def.type)) continue;
    const required = def.type.kind === Kind.NON_NULL_TYPE && !def.defaultValue;
    parameters.push({ in: 'query', name, required: required && method === 'get', schema: known });
  }
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of e.document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const root = e.operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  const data = root ? selectionSchema(new GraphQLNonNull(root), e.operation.selectionSet, fragments) : {};
  const description = `${e.comment ? `${e.comment}\n\n` : ''}***\nThe GraphQL query for this endpoint is:\n\`\`\` graphql\n${e.query}\n\`\`\``;
  const op: Schema = {
    summary: e.name,
    description,
    parameters,
    responses: {
      '200': {
        description: `Responses for ${method.toUpperCase()} /api/rest/${e.url}`,
        content: { 'application/json': { schema: data } },
      },
    },
  };
  if (method === 'post' || method === 'put' || method === 'patch') {
    op['requestBody'] = {
      description: 'Query parameters can also be provided in the request body as a JSON object',
      required: false,
      content: { 'application/json': { schema: { type: 'object', properties: bodyProperties } } },
    };
  }
  return op;
}

export function openApiDocument(endpoints: readonly ResolvedEndpoint[], adminSchema: GraphQLSchema): Schema {
  const paths: Record<string, Record<string, Schema>> = {};
  for (const e of [...endpoints].sort((a, b) => a.url.localeCompare(b.url))) {
    const path = '/api/rest/' + e.segments.map((s) => (s.kind === 'param' ? `{${s.name}}` : s.value)).join('/');
    const item = (paths[path] ??= {});
    for (const m of e.methods) item[m.toLowerCase()] = endpointOperation(e, m.toLowerCase(), adminSchema);
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Rest Endpoints', description: 'This OpenAPI specification is automatically generated by svc-graphql-engine.', version: '' },
    paths,
    components: {},
  };
}
