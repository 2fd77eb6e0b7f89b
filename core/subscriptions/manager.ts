/**
 * Live queries and streaming subscriptions, independent of any transport or database dialect:
 * plans a subscription, finds (or starts) its poller by (schema version, role, source, statement)
 * and puts the subscriber into the cohort of its session variables and values. Roles never
 * share a poller, as in the reference engine.
 *
 * Change tracking (`--live-queries-change-tracking`): one change feed per source connection,
 * when the source offers one; each poller's tables are watched, and a reported write marks the
 * pollers reading that table. While a feed is down every poller of its source polls.
 */
import type { ChangeFeed, SourceConnection } from '../db/contract.js';
import type { ServerConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import type { Session } from '../auth/session.js';
import type { GraphQLRequest } from '../graphql/execute/request.js';
import type { ExecutionMeta, GraphQLExecutor } from '../graphql/execute/executor.js';
import { bindParams } from '../graphql/execute/executor.js';
import { requireSessionVariables } from '../graphql/plan/session-variables.js';
import { graphqlErrorJson } from '../graphql/execute/errors.js';
import { showInternalTo } from '../auth/session.js';
import { subscriptionPlan, type SubscriptionPlan } from './plan.js';
import { Poller, type PollerMetrics, type SubscriberSink } from './poller.js';
import { polledSteps, startPolled, type PolledSubscription } from './polled.js';
import type { ExternalContext } from '../graphql/ir.js';

/** The database refused a subscription's first run (an execution error, not a planning one). */
export class FirstRunError extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

export interface SubscriptionHandle {
  /** A stream (every batch must reach the subscriber), not a live query (only the newest result matters). */
  readonly streaming: boolean;
  /** Stops the subscription; idempotent. */
  stop(): void;
}

export interface SubscriptionStats extends PollerMetrics {
  pollers: number;
  cohorts: number;
  subscribers: number;
  /** Of `subscribers`, those of streaming subscriptions (the rest are live queries). */
  streamingSubscribers: number;
}

interface FeedState {
  feed: ChangeFeed | null;
  /** False while the feed's connection is down. */
  up: boolean;
  ready: Promise<ChangeFeed | null>;
}

const tableKey = (t: { schema: string; name: string }): string => `${t.schema}\u0000${t.name}`;

export class SubscriptionManager {
  private readonly pollers = new Map<string, Poller>();
  private readonly feeds = new Map<SourceConnection, FeedState>();
  /** Per source connection and table: the pollers reading it. */
  private readonly readers = new Map<SourceConnection, Map<string, Set<Poller>>>();
  /** Pollers whose tables are all watched. */
  private readonly tracked = new WeakSet<Poller>();
  private readonly metrics: PollerMetrics = { statements: 0, polls: 0, skippedPolls: 0, messages: 0 };
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly executor: GraphQLExecutor,
    private readonly config: ServerConfig,
    private readonly logger: Logger,
  ) {}

  /**
   * Starts a subscription; resolves once its first result went to `sink` (or, for a stream with
   * no rows yet, once it is polled). Throws an EngineError for what the reference refuses at
   * start: invalid operation, missing session variable, a value the database rejects.
   * Resolves null when the operation is not a subscription (the caller runs it as a query).
   * `executor`: the API whose schema plans it (Relay's shares the pollers and change feeds of
   * `/v1/graphql`: one feed per source; pollers are keyed by statement, so APIs never mix answers).
   */
  async subscribe(
    request: GraphQLRequest,
    session: Session,
    sink: SubscriberSink,
    meta?: ExecutionMeta,
    executor: GraphQLExecutor = this.executor,
  ): Promise<SubscriptionHandle | null> {
    const planned = await executor.planSubscription(request, session);
    if (!planned) return null;
    // The allow-list and API limits refuse a subscription at start, as a query. A time limit
    // does not apply: a refetch serves many subscribers at once.
    await executor.admit(request, session, meta);
    const polled = polledSteps(planned.compiled.steps);
    if (polled) return this.subscribePolled(polled, request, planned.variables, session, sink, meta);
    const plan = subscriptionPlan(planned.compiled, { stringifyNumericTypes: this.config.stringifyNumericTypes });
    const names = plan.sessionVariables === 'all' ? Object.keys(session.variables).sort() : plan.sessionVariables;
    requireSessionVariables(names, session);
    const picked: Record<string, string> = {};
    for (const n of names) picked[n] = session.variables[n]!;
    const values = bindParams(plan.statement.params, planned.variables, session);
    const cursor = plan.initialCursor ? bindParams([plan.initialCursor], planned.variables, session)[0] : undefined;

    const key = `${planned.schemaVersion}\u0000${session.role}\u0000${plan.source}\u0000${plan.statement.key}`;
    let poller = this.pollers.get(key);
    if (!poller) {
      poller = this.startPoller(key, plan, session);
    }
    const id = this.nextId++;
    const p = poller;
    try {
      await p.add(id, sink, { session: picked, values, cursor });
    } catch (e) {
      throw new FirstRunError(e);
    }
    let stopped = false;
    return {
      streaming: plan.statement.streaming,
      stop: () => {
        if (stopped) return;
        stopped = true;
        p.remove(id);
      },
    };
  }

  /** Fields answered without a database (an async action's result): polled per subscriber. */
  private async subscribePolled(
    steps: NonNullable<ReturnType<typeof polledSteps>>,
    request: GraphQLRequest,
    variables: Record<string, unknown>,
    session: Session,
    sink: SubscriberSink,
    meta?: ExecutionMeta,
  ): Promise<SubscriptionHandle> {
    const ctx: ExternalContext = { session, variables, headers: meta?.headers ?? {}, query: request.query };
    let polled: PolledSubscription;
    try {
      polled = await startPolled(steps, ctx, sink, this.errorsJsonFor(session));
    } catch (e) {
      throw new FirstRunError(e);
    }
    // Each message is the answer's current state, as a live query's: not a stream.
    return { streaming: false, stop: () => polled.stop() };
  }

  private errorsJsonFor(session: Session): (e: unknown) => string {
    const showInternal = showInternalTo(session, this.config);
    return (e) => {
      const body = JSON.parse(graphqlErrorJson(e, showInternal).json) as { errors: unknown[] };
      return JSON.stringify(body.errors);
    };
  }

  stats(): SubscriptionStats {
    let cohorts = 0;
    let subscribers = 0;
    let streamingSubscribers = 0;
    for (const p of this.pollers.values()) {
      cohorts += p.cohortCount;
      subscribers += p.subscriberCount;
      if (p.streaming) streamingSubscribers += p.subscriberCount;
    }
    return { ...this.metrics, pollers: this.pollers.size, cohorts, subscribers, streamingSubscribers };
  }

  /** Stops every poller and closes the change feeds (shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.pollers.values()) p.stop();
    this.pollers.clear();
    const feeds = [...this.feeds.values()];
    this.feeds.clear();
    await Promise.all(feeds.map(async (f) => (await f.ready.catch(() => null))?.close()));
  }

  private startPoller(key: string, plan: SubscriptionPlan, session: Session): Poller {
    const streaming = plan.statement.streaming;
    const poller: Poller = new Poller(key, plan, {
      streaming,
      refetchInterval: () =>
        streaming ? this.config.streamingQueriesMultiplexedRefetchInterval : this.config.liveQueriesMultiplexedRefetchInterval,
      batchSize: () => (streaming ? this.config.streamingQueriesMultiplexedBatchSize : this.config.liveQueriesMultiplexedBatchSize),
      tracking: () => this.tracked.has(poller) && this.feeds.get(plan.connection)?.up === true,
      errorsJson: this.errorsJsonFor(session),
      metrics: this.metrics,
      onIdle: () => {
        if (this.pollers.get(key) === poller) this.pollers.delete(key);
        this.forgetReader(plan, poller);
      },
    });
    this.pollers.set(key, poller);
    if (this.config.liveQueriesChangeTracking && plan.tables !== null) void this.track(plan, poller);
    return poller;
  }

  private async track(plan: SubscriptionPlan, poller: Poller): Promise<void> {
    const tables = plan.tables!;
    let byTable = this.readers.get(plan.connection);
    if (!byTable) this.readers.set(plan.connection, (byTable = new Map()));
    for (const t of tables) {
      let set = byTable.get(tableKey(t));
      if (!set) byTable.set(tableKey(t), (set = new Set()));
      set.add(poller);
    }
    try {
      const feed = await this.feedFor(plan.connection, plan.source);
      if (!feed || this.closed) return;
      if (await feed.watch(tables)) {
        this.tracked.add(poller);
        // Writes made before the triggers existed were never reported: refetch once more.
        poller.markDirty();
      } else {
        this.logger.info('livequery-poller-log', { message: 'change tracking unavailable for some tables; polling them', source: plan.source });
      }
    } catch (e) {
      this.logger.warn('livequery-poller-log', { message: 'change tracking failed; polling instead', source: plan.source, error: String(e) });
    }
  }

  private forgetReader(plan: SubscriptionPlan, poller: Poller): void {
    const byTable = this.readers.get(plan.connection);
    if (!byTable || !plan.tables) return;
    for (const t of plan.tables) byTable.get(tableKey(t))?.delete(poller);
  }

  private feedFor(conn: SourceConnection, source: string): Promise<ChangeFeed | null> {
    let state = this.feeds.get(conn);
    if (!state) {
      const s: FeedState = { feed: null, up: true, ready: Promise.resolve(null) };
      const each = (fn: (p: Poller) => void): void => {
        for (const set of this.readers.get(conn)?.values() ?? []) for (const p of set) fn(p);
      };
      s.ready = conn.changeFeed
        ? conn
            .changeFeed({
              changed: (t) => {
                for (const p of this.readers.get(conn)?.get(tableKey(t)) ?? []) p.markDirty();
              },
              lost: () => {
                s.up = false;
                this.logger.warn('livequery-poller-log', { message: 'change feed connection lost; polling until it is back', source });
                each((p) => p.markDirty());
              },
              restored: () => {
                s.up = true;
                each((p) => p.markDirty());
              },
            })
            .then((feed) => {
              s.feed = feed;
              return feed;
            })
        : Promise.resolve(null);
      this.feeds.set(conn, s);
      state = s;
    }
    return state.ready;
  }
}
