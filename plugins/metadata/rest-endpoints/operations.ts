/**
 * create_rest_endpoint and drop_rest_endpoint (Document 1 §4.11). A new endpoint is resolved in
 * the rebuilt snapshot before anything is kept; when it cannot be served the operation answers
 * `invalid-configuration` with the reasons, as the reference does (its `buildSchemaCacheFor`).
 */
import {
  ARGS_PATH,
  EngineError,
  expectObject,
  jsonTypeName,
  optionalString,
  parseFailed,
  requireKey,
  SUCCESS,
} from '../../../core/sdk/index.js';
import { isRestMethod, requireName, restEndpointsOf, type PlainHandler, type RestMethod } from '../query-collections/collections.js';

function parseMethods(value: unknown, path: string): RestMethod[] {
  if (!Array.isArray(value)) throw parseFailed(`expected Array, but encountered ${jsonTypeName(value)}`, path);
  if (value.length === 0) throw parseFailed('parsing NonEmpty failed, unexpected empty list', path);
  return value.map((m, i) => {
    if (!isRestMethod(m)) throw parseFailed(`Method ${typeof m === 'string' ? m : JSON.stringify(m)} not supported.`, `${path}[${i}]`);
    return m;
  });
}

function parseDefinition(value: unknown, path: string): { query: { collection_name: string; query_name: string } } {
  const o = expectObject(value, path);
  const q = expectObject(requireKey(o, 'query', path), `${path}.query`);
  return {
    query: {
      collection_name: requireName(q, 'collection_name', `${path}.query`),
      query_name: requireName(q, 'query_name', `${path}.query`),
    },
  };
}

const create: PlainHandler = async (ctx, args) => {
  const name = requireName(args, 'name', ARGS_PATH);
  const url = requireName(args, 'url', ARGS_PATH);
  const methods = parseMethods(requireKey(args, 'methods', ARGS_PATH), `${ARGS_PATH}.methods`);
  const definition = parseDefinition(requireKey(args, 'definition', ARGS_PATH), `${ARGS_PATH}.definition`);
  const comment = optionalString(args, 'comment', ARGS_PATH);
  const endpoints = restEndpointsOf(ctx.draft);
  if (endpoints.some((e) => e.name === name)) {
    throw new EngineError('already-exists', `Endpoint with name: ${name} already exists`, { path: ARGS_PATH });
  }
  endpoints.push({ name, url, methods, definition, comment: comment ?? null });
  ctx.markChanged();
  const preview = await ctx.rebuildPreview();
  const own = preview.inconsistentObjects.filter((o) => o.type === 'rest_endpoint' && o.name === `rest_endpoint ${name}`);
  if (own.length > 0) {
    throw new EngineError('invalid-configuration', own.map((o) => o.reason).join(', '), { path: ARGS_PATH, internal: own });
  }
  return SUCCESS;
};

const drop: PlainHandler = (ctx, args) => {
  const name = requireName(args, 'name', ARGS_PATH);
  const endpoints = restEndpointsOf(ctx.draft);
  const index = endpoints.findIndex((e) => e.name === name);
  if (index === -1) throw new EngineError('not-exists', `endpoint with name: ${name} does not exist`, { path: ARGS_PATH });
  endpoints.splice(index, 1);
  ctx.markChanged();
  return SUCCESS;
};

export const REST_ENDPOINT_OPERATIONS: Readonly<Record<string, PlainHandler>> = {
  create_rest_endpoint: create,
  drop_rest_endpoint: drop,
};
