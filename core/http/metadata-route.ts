/**
 * The POST handler shared by /v1/metadata, /v1/query and /v2/query: read the JSON body,
 * authenticate, hand the body to the metadata service, answer its result.
 */
import type { Middleware } from 'koa';
import type { AwilixContainer } from 'awilix';
import type { KernelHooks } from '../hooks.js';
import type { ServerConfig } from '../config/types.js';
import { redactSecrets, type Logger } from '../logger.js';
import { RawJsonBody, type MetadataEndpoint } from '../metadata/operation.js';
import type { MetadataService } from '../metadata/service.js';
import { readJsonBody } from './body.js';
import { authenticateRequest } from './auth.js';
import type { AppRouterState } from './types.js';

export function metadataRoute(container: AwilixContainer, endpoint: MetadataEndpoint): Middleware<AppRouterState> {
  const hooks = container.resolve<KernelHooks>('hooks');
  const config = container.resolve<ServerConfig>('config');
  const logger = container.resolve<Logger>('logger');
  return async (ctx) => {
    const body = await readJsonBody(ctx, config.maxRequestBodySize);
    const session = await authenticateRequest(ctx, hooks, body);
    if (config.enableMetadataQueryLogging) {
      logger.info('query-log', { request_id: ctx.state.requestId, endpoint, query: redactSecrets(body) });
    }
    const service = container.resolve<MetadataService>('metadataService');
    const result = await service.handle(body, session, endpoint);
    ctx.status = result.status ?? 200;
    if (holdsRawJson(result.body)) {
      ctx.type = 'application/json';
      ctx.body = rawJsonText(result.body);
    } else {
      ctx.body = result.body;
    }
  };
}

const holdsRawJson = (body: unknown): boolean =>
  body instanceof RawJsonBody || (Array.isArray(body) && body.some((b) => b instanceof RawJsonBody));

/** A body, or a bulk's list of bodies, with RawJsonBody parts spliced in without re-encoding. */
function rawJsonText(body: unknown): string {
  if (body instanceof RawJsonBody) return body.json;
  if (Array.isArray(body)) return `[${body.map(rawJsonText).join(',')}]`;
  return JSON.stringify(body) ?? 'null';
}
