/**
 * One poller per (role, source, statement): its cohorts are refetched together, ONE statement per
 * batch of up to `batchSize` cohorts, every refetch interval (the period is the poll's own time
 * plus the interval, as in the reference engine).
 *
 * Send rule (live queries): a cohort's result is hashed; subscribers get a message only when the
 * hash changed, except that a new subscriber always gets its first result. Errors are always
 * sent. Streams: a cohort's cursor moves with every non-empty batch, which goes to all of its
 * subscribers; empty batches are never sent. A stream cohort is re-keyed as its cursor moves, so
 * a newcomer joins it only when its initial value equals the current cursor.
 *
 * New cohorts do not wait for the next poll: they are gathered for a moment and run together at
 * once. That run is also the check the reference engine makes before a start (bad values fail
 * the start, not the shared poll): when a batch of newcomers fails, each is retried alone, and
 * only the failing ones are refused.
 *
 * Change tracking: when the poller's tables are watched and nothing was written to them since
 * the last refetch, the poll is skipped, and the poller sleeps until a write is reported.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { CohortInput, CohortOutput } from '../db/contract.js';
import type { SubscriptionPlan } from './plan.js';

export interface SubscriberSink {
  /** One response as JSON text: `{"data":...}` or `{"data":null,"errors":[...]}`. */
  push(json: string): void;
  /** The subscription has ended on the server's side (its answer is final); the transport says so. */
  complete?(): void;
}

export interface SubscriberInput {
  session: Readonly<Record<string, string>>;
  values: readonly unknown[];
  /** Streams: the initial cursor value. */
  cursor: unknown;
}

export interface PollerMetrics {
  /** Multiplexed statements run (refetches and first runs). */
  statements: number;
  /** Refetches made / skipped because change tracking saw no write. */
  polls: number;
  skippedPolls: number;
  messages: number;
}

export interface PollerDeps {
  readonly streaming: boolean;
  refetchInterval(): number;
  batchSize(): number;
  /** Whether a skipped refetch is safe now: the tables are watched and the feed is up. */
  tracking(): boolean;
  /** An error as the `errors` array's JSON text, for this poller's role. */
  errorsJson(e: unknown): string;
  metrics: PollerMetrics;
  /** The poller has no subscriber left and stopped. */
  onIdle(): void;
}

/** A tracked poller refetches at least this often, writes reported or not. */
export const TRACKED_MAX_IDLE_MS = 60_000;

/** Results longer than this are not kept for newcomers (they wait for the next refetch instead). */
const KEEP_RESULT_BYTES = 16 * 1024;

interface Cohort {
  readonly id: string;
  /** The key without the cursor; with it, `key` (streams are re-keyed as the cursor moves). */
  readonly baseKey: string;
  key: string;
  readonly session: Readonly<Record<string, string>>;
  readonly values: readonly unknown[];
  cursor: unknown;
  readonly subscribers: Map<number, SubscriberSink>;
  /** Subscribers that have had no result yet. */
  readonly fresh: Set<number>;
  lastHash: string | null;
  lastResult: string | null;
  /** While the first run is pending: settles when it is done. */
  joined: Promise<void> | null;
}

interface Join {
  cohort: Cohort;
  resolve(): void;
  reject(e: unknown): void;
}

export class Poller {
  private readonly cohorts = new Map<string, Cohort>();
  private readonly joining = new Map<string, Cohort>();
  private readonly members = new Map<number, Cohort>();
  private queue: Join[] = [];
  private flushScheduled = false;
  private stopped = false;
  private started = false;
  private dirty = true;
  private wake: (() => void) | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly key: string,
    readonly plan: SubscriptionPlan,
    private readonly deps: PollerDeps,
  ) {}

  get streaming(): boolean {
    return this.deps.streaming;
  }

  get subscriberCount(): number {
    return this.members.size;
  }

  get cohortCount(): number {
    return this.cohorts.size + this.joining.size;
  }

  /** A write was reported on one of the poller's tables (or the feed cannot vouch for anything). */
  markDirty(): void {
    this.dirty = true;
    this.wake?.();
  }

  /**
   * Adds a subscriber; resolves once it is served (its cohort's first run is done), rejects when
   * that run fails for its cohort (the subscriber is then not added).
   */
  add(id: number, sink: SubscriberSink, input: SubscriberInput): Promise<void> {
    const baseKey = JSON.stringify([input.session, input.values]);
    const key = this.deps.streaming ? cursorKey(baseKey, input.cursor) : baseKey;
    const existing = this.cohorts.get(key) ?? this.joining.get(key);
    if (existing) {
      existing.subscribers.set(id, sink);
      this.members.set(id, existing);
      if (!this.deps.streaming && existing.lastResult !== null && existing.joined === null) {
        // The cohort's current result, as fresh as its other subscribers': no database work.
        this.send(sink, existing.lastResult);
      } else if (!this.deps.streaming) {
        existing.fresh.add(id);
      }
      return existing.joined ?? Promise.resolve();
    }
    const cohort: Cohort = {
      id: randomUUID(),
      baseKey,
      key,
      session: input.session,
      values: input.values,
      cursor: input.cursor,
      subscribers: new Map([[id, sink]]),
      fresh: new Set([id]),
      lastHash: null,
      lastResult: null,
      joined: null,
    };
    this.members.set(id, cohort);
    this.joining.set(key, cohort);
    cohort.joined = new Promise<void>((resolve, reject) => this.queue.push({ cohort, resolve, reject }));
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => void this.flushJoins());
    }
    return cohort.joined;
  }

  remove(id: number): void {
    const cohort = this.members.get(id);
    if (!cohort) return;
    this.members.delete(id);
    cohort.subscribers.delete(id);
    cohort.fresh.delete(id);
    if (cohort.subscribers.size === 0 && cohort.joined === null) this.cohorts.delete(cohort.key);
    this.stopIfIdle();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.wake?.();
  }

  private stopIfIdle(): void {
    if (this.members.size > 0 || this.joining.size > 0 || this.stopped) return;
    this.stop();
    this.deps.onIdle();
  }

  private async flushJoins(): Promise<void> {
    this.flushScheduled = false;
    const joins = this.queue;
    this.queue = [];
    const size = Math.max(1, this.deps.batchSize());
    const batches: Join[][] = [];
    for (let i = 0; i < joins.length; i += size) batches.push(joins.slice(i, i + size));
    await Promise.all(batches.map((b) => this.runJoins(b)));
    if (!this.started && !this.stopped && this.cohorts.size > 0) {
      this.started = true;
      void this.loop();
    }
    this.stopIfIdle();
  }

  private async runJoins(batch: Join[]): Promise<void> {
    let outputs: CohortOutput[];
    try {
      outputs = await this.run(batch.map((j) => j.cohort));
    } catch (e) {
      if (batch.length > 1) {
        // One bad newcomer must not refuse the others: find it by running each alone.
        await Promise.all(batch.map((j) => this.runJoins([j])));
        return;
      }
      const j = batch[0]!;
      this.joining.delete(j.cohort.key);
      for (const id of j.cohort.subscribers.keys()) this.members.delete(id);
      j.reject(e);
      return;
    }
    const byId = new Map(outputs.map((o) => [o.id, o] as const));
    for (const j of batch) {
      const c = j.cohort;
      this.joining.delete(c.key);
      c.joined = null;
      const out = byId.get(c.id);
      if (c.subscribers.size > 0) {
        this.cohorts.set(c.key, c);
        if (out) this.deliver(c, out);
      }
      j.resolve();
    }
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      await this.sleep(this.deps.refetchInterval());
      if (this.stopped) break;
      if (this.deps.tracking()) {
        // Nothing written since the last refetch: wait for a write instead of polling, but not
        // longer than TRACKED_MAX_IDLE_MS (a trigger dropped behind the engine's back, or
        // writes that fire no trigger, are then still seen).
        if (!this.dirty) this.deps.metrics.skippedPolls++;
        const until = Date.now() + TRACKED_MAX_IDLE_MS;
        while (!this.dirty && !this.stopped && this.deps.tracking() && Date.now() < until) await this.sleep(Infinity, until - Date.now());
        if (this.stopped) break;
      }
      await this.poll();
    }
  }

  /**
   * Sleeps `ms`. An infinite sleep (a tracked poller waiting for a write) ends when `markDirty`
   * wakes it, or after `cap` ms; the refetch interval itself always runs in full.
   */
  private sleep(ms: number, cap?: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(this.timer);
        this.wake = null;
        resolve();
      };
      if (Number.isFinite(ms)) {
        this.timer = setTimeout(done, ms);
        this.wake = null;
      } else {
        this.wake = done;
        if (cap !== undefined) this.timer = setTimeout(done, Math.max(0, cap));
      }
    });
  }

  private async poll(): Promise<void> {
    // Cleared before the statement takes its snapshot: a write reported from now on polls again.
    this.dirty = false;
    const list = [...this.cohorts.values()];
    if (list.length === 0) return;
    this.deps.metrics.polls++;
    const size = Math.max(1, this.deps.batchSize());
    const runs: Array<Promise<void>> = [];
    for (let i = 0; i < list.length; i += size) runs.push(this.pollBatch(list.slice(i, i + size)));
    await Promise.all(runs);
  }

  private async pollBatch(batch: Cohort[]): Promise<void> {
    let outputs: CohortOutput[];
    try {
      outputs = await this.run(batch);
    } catch (e) {
      const json = `{"data":null,"errors":${this.deps.errorsJson(e)}}`;
      for (const c of batch) {
        c.lastHash = null;
        c.lastResult = null;
        c.fresh.clear();
        for (const sink of c.subscribers.values()) this.send(sink, json);
      }
      return;
    }
    const byId = new Map(outputs.map((o) => [o.id, o] as const));
    for (const c of batch) {
      const out = byId.get(c.id);
      if (out && this.cohorts.get(c.key) === c) this.deliver(c, out);
    }
  }

  private run(cohorts: readonly Cohort[]): Promise<CohortOutput[]> {
    this.deps.metrics.statements++;
    const inputs: CohortInput[] = cohorts.map((c) => ({
      id: c.id,
      session: c.session,
      values: c.values,
      ...(this.deps.streaming ? { cursor: c.cursor } : {}),
    }));
    return this.plan.connection.runMultiplexed!(this.plan.statement, inputs);
  }

  private deliver(c: Cohort, out: CohortOutput): void {
    const json = `{"data":${out.result}}`;
    if (this.deps.streaming) {
      if (out.cursor === null) return;
      // More rows may follow the batch: a stream keeps polling until a batch comes back empty.
      this.dirty = true;
      for (const sink of c.subscribers.values()) this.send(sink, json);
      this.advance(c, out.cursor);
      return;
    }
    const hash = createHash('sha256').update(out.result).digest('base64');
    if (hash !== c.lastHash) {
      for (const sink of c.subscribers.values()) this.send(sink, json);
    } else {
      for (const id of c.fresh) {
        const sink = c.subscribers.get(id);
        if (sink) this.send(sink, json);
      }
    }
    c.fresh.clear();
    c.lastHash = hash;
    c.lastResult = json.length <= KEEP_RESULT_BYTES ? json : null;
  }

  /** Moves a stream cohort's cursor; it merges into a cohort already at that cursor. */
  private advance(c: Cohort, cursor: string): void {
    this.cohorts.delete(c.key);
    c.cursor = cursor;
    c.key = cursorKey(c.baseKey, cursor);
    const other = this.cohorts.get(c.key);
    if (!other) {
      this.cohorts.set(c.key, c);
      return;
    }
    for (const [id, sink] of c.subscribers) {
      other.subscribers.set(id, sink);
      this.members.set(id, other);
    }
  }

  private send(sink: SubscriberSink, json: string): void {
    this.deps.metrics.messages++;
    sink.push(json);
  }
}

function cursorKey(baseKey: string, cursor: unknown): string {
  // The first value is a JS value, later ones the database's text: compare them as text.
  return `${baseKey}\u0000${cursor === null || cursor === undefined ? '' : typeof cursor === 'object' ? JSON.stringify(cursor) : String(cursor)}`;
}
