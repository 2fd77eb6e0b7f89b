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
  private running = false;
  private loop: Promise<void> | null = null;
  private readonly inFlight = new Map<string, AbortController>();
  private wake: (() => void) | null = null;

  constructor(
    private readonly store: ActionLogStore,
    private readonly http: OutgoingHttp,
    private readonly resolve: (name: string) => ResolvedAction | undefined,
    private readonly logger: Logger,
    private readonly options: AsyncRunnerOptions & { shutdownTimeoutMs: number },
  ) {}

  start(): void {
    this.running = true;
    this.loop = this.run().catch((e: unknown) => this.logger.error('async-action', { message: 'async action runner stopped', error: String(e) }));
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake?.();
    await this.loop;
    const deadline = Date.now() + this.options.shutdownTimeoutMs;
    while (this.inFlight.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const unfinished = [...this.inFlight.keys()];
    for (const c of this.inFlight.values()) c.abort();
    await this.store.release(unfinished).catch((e: unknown) => this.logger.error('async-action', { message: 'could not release unfinished actions', error: String(e) }));
  }

  private async run(): Promise<void> {
    while (this.running) {
      let claimed: ClaimedAction[] = [];
      const room = this.options.batchSize - this.inFlight.size;
      if (room > 0) {
        try {
          claimed = await this.store.claim(room, this.options.lockTimeoutSeconds);
        } catch (e) {
          this.logger.error('async-action', { message: 'could not fetch async actions', error: String(e) });
        }
      }
      for (const a of claimed) this.process(a);
      if (!this.running) break;
      if (claimed.length === 0 || this.inFlight.size >= this.options.batchSize) await this.nap(this.options.fetchIntervalMs);
    }
  }

  private nap(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        done();
      };
    });
  }

  private process(a: ClaimedAction): void {
    const controller = new AbortController();
    this.inFlight.set(a.id, controller);
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
    work
      .then((output) => (controller.signal.aborted ? undefined : this.store.complete(a.id, output)))
      .catch((e: unknown) => (controller.signal.aborted ? undefined : this.store.fail(a.id, storedError(e))))
      .catch((e: unknown) => this.logger.error('async-action', { message: 'could not store an async action result', id: a.id, error: String(e) }))
      .finally(() => {
        this.inFlight.delete(a.id);
        if (this.running && this.inFlight.size === this.options.batchSize - 1) this.wake?.();
      });
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
