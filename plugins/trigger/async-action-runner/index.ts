/**
 * The asynchronous action runner: claims stored action requests (FOR UPDATE SKIP LOCKED, so
 * engines share the log), calls each action's handler with the stored input, session variables
 * and forwarded headers (`request_query` null, as in the reference), and stores the output
 * (`completed`) or the error (`error`). Taps `onEvent`: starts on `server.started` unless
 * --async-actions-fetch-interval is 0, stops on `shutdown.started` (in-flight calls finish within
 * --graceful-shutdown-timeout; the rest go back to `created`). Options: `fetchIntervalMs`
 * (--async-actions-fetch-interval, default 1000), `batchSize` (requests claimed and in flight at
 * once, 10), `lockTimeoutSeconds` (how long the claims of an engine that died block their
 * requests, 1800). Safe to disable: requests wait for an engine that runs it.
 */
import {
  definePlugin,
  DeliveryLoop,
  isEngineError,
  OutgoingHttp,
  type Json,
  type Logger,
  type SchemaCacheRef,
  type ServerConfig,
} from '../../../core/sdk/index.js';
import { actionsOfCache } from '../../metadata/actions/index.js';
import { actionLogStore, type ActionLogStore, type ClaimedAction } from '../../metadata/actions/action-log.js';
import { callHandler } from '../../metadata/actions/call.js';
import type { ResolvedAction } from '../../metadata/actions/resolve.js';

const PLUGIN_ID = 'trigger/async-action-runner';

export interface AsyncRunnerOptions {
  fetchIntervalMs: number;
  batchSize: number;
  lockTimeoutSeconds: number;
}

/** A failure as the action log keeps it: `{error, path, code, internal?}`. */
function storedError(e: unknown): Json {
  if (!isEngineError(e)) return { error: String(e), path: '$', code: 'unexpected' };
  const code = typeof e.extensions?.['code'] === 'string' ? e.extensions['code'] : e.code;
  return { error: e.message, path: e.path, code, ...(e.internal !== undefined ? { internal: e.internal as Json } : {}) };
}

class AsyncActionRunner {
  private readonly loop: DeliveryLoop;

  constructor(
    private readonly store: ActionLogStore,
    private readonly http: OutgoingHttp,
    private readonly resolve: (name: string) => ResolvedAction | undefined,
    private readonly logger: Logger,
    private readonly options: AsyncRunnerOptions & { shutdownTimeoutMs: number },
  ) {
    this.loop = new DeliveryLoop(
      {
        round: () => this.round(),
        roundFailed: (e) => this.logger.error('async-action', { message: 'could not fetch async actions', error: String(e) }),
      },
      { poolSize: options.batchSize, fetchIntervalMs: options.fetchIntervalMs, shutdownTimeoutMs: options.shutdownTimeoutMs },
    );
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    const unfinished = await this.loop.stop();
    if (unfinished.length === 0) return;
    await this.store.release(unfinished).catch((e: unknown) => this.logger.error('async-action', { message: 'could not release unfinished actions', error: String(e) }));
  }

  /** True when the claim filled every free slot. */
  private async round(): Promise<boolean> {
    const room = this.loop.free;
    if (room <= 0) return true;
    const claimed = await this.store.claim(room, this.options.lockTimeoutSeconds);
    for (const a of claimed) this.process(a);
    return claimed.length === room;
  }

  private process(a: ClaimedAction): void {
    const controller = new AbortController();
    const action = this.resolve(a.actionName);
    const work = action
      ? callHandler({
          http: this.http,
          webhook: action.webhook,
          actionName: a.actionName,
          input: a.input,
          sessionVariables: a.sessionVariables,
          requestQuery: null,
          forwarded: a.requestHeaders,
          signal: controller.signal,
        })
      : Promise.reject(new Error(`action with name "${a.actionName}" does not exist`));
    // Aborted at shutdown: nothing is stored, the stop puts the request back to created.
    const stored = work
      .then((output) => (controller.signal.aborted ? undefined : this.store.complete(a.id, output)))
      .catch((e: unknown) => (controller.signal.aborted ? undefined : this.store.fail(a.id, storedError(e))))
      .catch((e: unknown) => this.logger.error('async-action', { message: 'could not store an async action result', id: a.id, error: String(e) }));
    this.loop.track(a.id, controller, stored);
  }
}

export default definePlugin<AsyncRunnerOptions>({
  name: 'async-action-runner',
  kind: 'trigger',
  provides: ['async-actions'],
  dependsOn: ['metadata/actions'],
  optionsSchema: {
    type: 'object',
    properties: {
      fetchIntervalMs: { type: 'integer', minimum: 0, default: 1000 },
      batchSize: { type: 'integer', minimum: 1, default: 10 },
      lockTimeoutSeconds: { type: 'integer', minimum: 1, default: 1800 },
    },
    required: ['fetchIntervalMs', 'batchSize', 'lockTimeoutSeconds'],
    additionalProperties: false,
  },
  optionsFromConfig: (config: ServerConfig) => (config.asyncActionsFetchInterval !== undefined ? { fetchIntervalMs: config.asyncActionsFetchInterval } : {}),
  register(container, hooks, options) {
    const config = container.resolve<ServerConfig>('config');
    const logger = container.resolve<Logger>('logger');
    let runner: AsyncActionRunner | undefined;
    let http: OutgoingHttp | undefined;
    hooks.onEvent.tapPromise(PLUGIN_ID, async (event) => {
      // Workers 2..N of --workers only serve requests; worker 1 delivers.
      if (event.type === 'server.started' && event.background && options.fetchIntervalMs > 0) {
        let store: ActionLogStore;
        try {
          store = actionLogStore(container);
        } catch (e) {
          logger.warn('async-action', { message: 'asynchronous actions are not delivered by this engine', error: String(e) });
          return;
        }
        await store.init().catch((e: unknown) => logger.error('async-action', { message: 'could not create the action log', error: String(e) }));
        http = new OutgoingHttp();
        const cache = () => container.resolve<SchemaCacheRef>('schemaCacheRef').current;
        runner = new AsyncActionRunner(store, http, (name) => actionsOfCache(container, cache()).actions.get(name), logger, {
          ...options,
          shutdownTimeoutMs: config.gracefulShutdownTimeout * 1000,
        });
        runner.start();
      } else if (event.type === 'shutdown.started') {
        await runner?.stop();
        await http?.close();
        runner = undefined;
        http = undefined;
      }
    });
  },
});
