/**
 * Runs the health checks of the sources that configure one: per source, the test statement every
 * `interval` seconds within `timeout`; a check that does not pass is retried up to `retries`
 * times, `retry_interval` seconds apart, and the last outcome is kept with its time. Each outcome
 * is logged as `health-check-log`. Loops follow the metadata: a changed configuration restarts
 * its loop, a removed one stops.
 */
import {
  type Logger,
  type SourceConnection,
  type SourceHealth,
} from '../../../core/sdk/index.js';
import type { HealthCheckConfig } from '../../metadata/sources/health-check.js';

export interface CheckedSource {
  name: string;
  config: HealthCheckConfig;
  /** The source's connection, or why there is none (an unknown kind, a bad configuration). */
  connection: SourceConnection | { failed: string };
}

interface Loop {
  key: string;
  connection: CheckedSource['connection'];
  timer: NodeJS.Timeout | undefined;
  stopped: boolean;
}

export class HealthChecker {
  private readonly loops = new Map<string, Loop>();
  private readonly statuses = new Map<string, SourceHealth>();

  constructor(
    private readonly logger: Logger,
    /** Called with the whole report after each change to it. */
    private readonly changed: (report: Record<string, SourceHealth>) => void = () => {},
  ) {}

  /** The last outcome of each source that has one, by source name. */
  report(): Record<string, SourceHealth> {
    return Object.fromEntries(this.statuses);
  }

  /** Starts, restarts or stops loops so that exactly `sources` are checked. */
  follow(sources: readonly CheckedSource[]): void {
    const wanted = new Map(sources.map((s) => [s.name, s] as const));
    for (const [name, loop] of this.loops) {
      const next = wanted.get(name);
      if (next && loopKey(next) === loop.key && next.connection === loop.connection) continue;
      this.stopLoop(name);
      if (!next && this.statuses.delete(name)) this.changed(this.report());
    }
    for (const s of sources) if (!this.loops.has(s.name)) this.startLoop(s);
  }

  stop(): void {
    for (const name of [...this.loops.keys()]) this.stopLoop(name);
  }

  private stopLoop(name: string): void {
    const loop = this.loops.get(name);
    if (!loop) return;
    loop.stopped = true;
    if (loop.timer) clearTimeout(loop.timer);
    this.loops.delete(name);
  }

  private startLoop(source: CheckedSource): void {
    const loop: Loop = { key: loopKey(source), connection: source.connection, timer: undefined, stopped: false };
    this.loops.set(source.name, loop);
    const wait = (seconds: number) =>
      new Promise<void>((resolve) => {
        loop.timer = setTimeout(resolve, seconds * 1000);
        loop.timer.unref();
      });
    const run = async (): Promise<void> => {
      while (!loop.stopped) {
        let outcome = await this.checkOnce(source);
        for (let retry = 1; retry <= source.config.retries && outcome.status !== 'OK' && !loop.stopped; retry++) {
          this.log(source, outcome, retry - 1);
          await wait(source.config.retryIntervalSeconds);
          if (!loop.stopped) outcome = await this.checkOnce(source);
        }
        if (loop.stopped) return;
        this.statuses.set(source.name, outcome);
        this.changed(this.report());
        this.log(source, outcome, source.config.retries);
        await wait(source.config.intervalSeconds);
      }
    };
    void run();
  }

  private async checkOnce(source: CheckedSource): Promise<SourceHealth> {
    const c = source.connection;
    if ('failed' in c) return { status: 'FAILED', error: c.failed, timestamp: new Date().toISOString() };
    try {
      return await c.health(source.config.timeoutSeconds * 1000, source.config.sql);
    } catch (e) {
      return { status: 'ERROR', error: { message: e instanceof Error ? e.message : String(e) }, timestamp: new Date().toISOString() };
    }
  }

  private log(source: CheckedSource, outcome: SourceHealth, iteration: number): void {
    const level = outcome.status === 'OK' ? 'info' : 'warn';
    this.logger.log('health-check-log', level, {
      source_name: source.name,
      status: outcome.status,
      timestamp: outcome.timestamp,
      error: outcome.error,
      internal: {
        interval: source.config.intervalSeconds,
        max_retries: source.config.retries,
        retry_iteration: iteration,
        timeout: source.config.timeoutSeconds,
      },
    });
  }
}

function loopKey(s: CheckedSource): string {
  return JSON.stringify([s.config, 'failed' in s.connection ? s.connection.failed : null]);
}
