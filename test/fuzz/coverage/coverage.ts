/**
 * Coverage feedback from V8 itself (node:inspector's Profiler, precise coverage at block
 * granularity), restricted to the engine's own source files. The engine runs in this process, so
 * after each input `take()` reads and resets V8's block counters and says whether the input reached
 * a block, or a block a new number of times (counts in AFL-style buckets), that no earlier input
 * had. That is the signal libFuzzer / Jazzer.js use, read from V8 instead of compiler
 * instrumentation.
 */
import { Session } from 'node:inspector/promises';
import { pathToFileURL } from 'node:url';

/** What Profiler.takePreciseCoverage answers (the part used here). */
interface ScriptCoverage {
  url: string;
  functions: Array<{ ranges: Array<{ startOffset: number; endOffset: number; count: number }> }>;
}

/** Hit counts grouped as AFL does: a loop running 3 times instead of once is new behaviour, 90 instead of 80 is not. */
function bucket(count: number): number {
  if (count <= 3) return count;
  if (count <= 7) return 4;
  if (count <= 15) return 5;
  if (count <= 31) return 6;
  if (count <= 127) return 7;
  return 8;
}

export class CoverageMap {
  private readonly session = new Session();
  private readonly seen = new Set<string>();
  private readonly blocks = new Set<string>();
  private readonly prefixes: string[];
  /** Time spent reading coverage, for the report. */
  takeMs = 0;

  /** `roots`: absolute directories whose files count (the engine's core/ and plugins/). */
  constructor(roots: readonly string[]) {
    this.prefixes = roots.map((r) => pathToFileURL(r).href.replace(/\/?$/, '/'));
  }

  private started = false;

  async start(): Promise<void> {
    this.session.connect();
    this.started = true;
    await this.session.post('Profiler.enable');
    // callCount: real counts (for the buckets); detailed: block granularity, not just functions.
    await this.session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
  }

  /** Reads and resets the counters; the number of features (block × bucket) never seen before. */
  async take(): Promise<number> {
    const t0 = performance.now();
    const { result } = (await this.session.post('Profiler.takePreciseCoverage')) as { result: ScriptCoverage[] };
    this.takeMs += performance.now() - t0;
    let fresh = 0;
    for (const script of result) {
      if (!this.prefixes.some((p) => script.url.startsWith(p)) || script.url.includes('/node_modules/')) continue;
      for (const fn of script.functions) {
        for (const r of fn.ranges) {
          if (r.count === 0) continue;
          const block = `${script.url}:${r.startOffset}:${r.endOffset}`;
          this.blocks.add(block);
          const key = `${block}#${bucket(r.count)}`;
          if (!this.seen.has(key)) {
            this.seen.add(key);
            fresh++;
          }
        }
      }
    }
    return fresh;
  }

  /** Distinct blocks of the engine reached so far, and features (block × count bucket). */
  get size(): { blocks: number; features: number } {
    return { blocks: this.blocks.size, features: this.seen.size };
  }

  private stopped = false;

  /** Idempotent: coverage slows everything down, so an `after` hook stops it whatever happened. */
  async stop(): Promise<void> {
    if (this.stopped || !this.started) return;
    this.stopped = true;
    await this.session.post('Profiler.stopPreciseCoverage');
    await this.session.post('Profiler.disable');
    this.session.disconnect();
  }
}
