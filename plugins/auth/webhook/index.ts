/**
 * Webhook mode (--auth-hook, --auth-hook-mode). A request without an admin secret header is
 * authenticated by calling the webhook (GET with the client's headers, or POST with
 * `{headers, request}`); its 200 answer gives the session variables and role, its `Set-Cookie`
 * headers are passed on to the client, and `Cache-Control`/`Expires` in the answer set the
 * session's expiry. 401 from the webhook is a 401; any other status, an unreadable answer, a
 * failed call, one exceeding `timeoutSeconds` or an answer larger than `maxResponseBytes` is a 500
 * saying which. The call goes through the shared `outgoingHttp` client. The webhook is called for every such
 * request: the unauthorized role does not apply in this mode (the reference engine refuses to
 * start with both). Requires an admin secret and excludes JWT mode (boot errors). Taps
 * `onRequestAuth` at DEFAULT, after admin-secret. Without --auth-hook it registers nothing.
 */
import {
  type AuthRequest,
  BootError,
  checkAuthModeRequirements,
  definePlugin,
  EngineError,
  type Logger,
  makeSession,
  OutgoingCallError,
  type OutgoingHttp,
  type ServerConfig,
  type Session,
  Stage,
} from '../../../core/sdk/index.js';
import { getModeHeaders, postModeBody, type HookMode, type HookResponse } from './request.js';
import { interpretHookAnswer, missingRoleError, sessionVariablesOf } from './response.js';
import { hookExpiry } from './expiry.js';

const PLUGIN_ID = 'auth/webhook';
const LOG_TYPE = 'webhook-log';

export interface WebhookOptions {
  /** The --auth-hook URL; without it the plugin does nothing. */
  url?: string;
  mode: HookMode;
  /** Deadline of one webhook call; the reference engine's HTTP client gives up after 30 s. */
  timeoutSeconds: number;
  /** Larger answers are refused (a session is a few hundred bytes; the cap bounds memory per request). */
  maxResponseBytes: number;
}

export default definePlugin<WebhookOptions>({
  name: 'webhook',
  kind: 'auth',
  optionsSchema: {
    type: 'object',
    properties: {
      url: { type: 'string', nullable: true },
      mode: { type: 'string', enum: ['GET', 'POST'], default: 'GET' },
      timeoutSeconds: { type: 'number', exclusiveMinimum: 0, default: 30 },
      maxResponseBytes: { type: 'integer', minimum: 1, default: 1048576 },
    },
    required: ['mode', 'timeoutSeconds', 'maxResponseBytes'],
    additionalProperties: false,
  },
  optionsFromConfig: (config) => ({
    mode: config.authHookMode,
    ...(config.authHook !== undefined ? { url: config.authHook } : {}),
  }),
  register(container, hooks, { url, mode, timeoutSeconds, maxResponseBytes }) {
    if (url === undefined) return;
    const target = parseUrl(url);
    const config = container.resolve<ServerConfig>('config');
    checkAuthModeRequirements(config, 'webhook');
    const logger = container.resolve<Logger>('logger');
    const http = container.resolve<OutgoingHttp>('outgoingHttp');
    const limits = { timeoutMs: timeoutSeconds * 1000, maxResponseBytes };

    hooks.onRequestAuth.tapPromise({ name: PLUGIN_ID, stage: Stage.DEFAULT }, async (req): Promise<Session> => {
      const res = await call(http, target, mode, req, limits, logger);
      const verdict = interpretHookAnswer(res.status, res.body);
      if (verdict.kind === 'rejected') {
        logger.error(LOG_TYPE, { url, method: mode, status: res.status, response: res.body.toString('utf8') });
        throw verdict.error;
      }
      const variables = sessionVariablesOf(verdict.answer);
      const role = variables['x-svc-role'];
      if (role === undefined || role === '') throw missingRoleError();
      for (const cookie of setCookies(res)) req.responseHeaders.push(['Set-Cookie', cookie]);
      const { expiresAt, problem } = hookExpiry(verdict.answer, Date.now());
      if (problem) logger.warn(LOG_TYPE, { url, method: mode, status: res.status, message: problem });
      logger.info(LOG_TYPE, { url, method: mode, status: res.status });
      const session = makeSession(role, variables);
      return expiresAt ? { ...session, expiresAt } : session;
    });
  },
});

function parseUrl(url: string): URL {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed;
  } catch {
    // reported below
  }
  throw new BootError('E_OPTION_INVALID', `--auth-hook (SVC_GRAPHQL_AUTH_HOOK) must be an http or https URL: ${url}`);
}

const FAILURE: Readonly<Record<string, string>> = {
  timeout: 'webhook authentication request timed out',
  'too-large': 'webhook authentication response is too large',
};

async function call(
  http: OutgoingHttp,
  target: URL,
  mode: HookMode,
  req: AuthRequest,
  limits: { timeoutMs: number; maxResponseBytes: number },
  logger: Logger,
): Promise<HookResponse> {
  try {
    return await http.request({
      url: target,
      method: mode,
      headers: getModeHeaders(mode === 'GET' ? req.headers : {}),
      ...(mode === 'POST' ? { body: postModeBody(req.headers, req.body) } : {}),
      ...limits,
    });
  } catch (e) {
    if (!(e instanceof OutgoingCallError)) throw e;
    logger.error(LOG_TYPE, { url: target.href, method: mode, http_error: e.message, kind: e.kind });
    // The reference engine's message, made specific for the two limits an operator tunes.
    const message = FAILURE[e.kind] ?? 'webhook authentication request failed';
    throw new EngineError('unexpected', message, { status: 500, internal: { kind: e.kind, message: e.message } });
  }
}

function setCookies(res: HookResponse): string[] {
  const v = res.headers['set-cookie'];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}
