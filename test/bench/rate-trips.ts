/**
 * What one rate-limit reservation round trip costs the engine's process, as a server pays it: the
 * process is woken every 10 ms for a little unrelated work (a server between requests), and in
 * alternate phases it also sends a reservation of `--keys` keys to the metadata-database store
 * (plugins/limits/rate/pg-store.ts) every `--every-ms`. The difference in process CPU between the
 * two kinds of phase, per trip, is the trip's cost with its code and data gone cold in between,
 * which is what sets how long background reservations are held back for others to join
 * (BACKGROUND_DELAY_MS, plugins/limits/rate/leases.ts). A loop of trips back to back measures
 * the warm cost instead, several times lower.
 *
 *   npx tsx test/bench/rate-trips.ts --metadata-database-url postgres://postgres@127.0.0.1:5432/somedb [--keys 35] [--every-ms 250] [--rounds 3] [--duration 10]
 *   npm run bench:rate-trips -- ...
 *
 * The store's table is created in that database's `svc_catalog` schema if missing; its keys are
 * named `svc:bench:trip:*` and expire as any other.
 */
import { PgRateStore } from '../../plugins/limits/rate/pg-store.js';
import type { Reservation } from '../../plugins/limits/rate/store.js';
import { sleep } from './proc.js';
import { benchArgs, isMain, median, repoRootOf, writeBenchReport } from './round-robin.js';

const WINDOW_MS = 60_000;
const TICK_MS = 10;
/** Random reads of an 8-MiB array per tick: the unrelated work that evicts the trip's cache lines. */
const TICK_READS = 300;

export interface TripOptions {
  url: string;
  keys: number;
  everyMs: number;
  rounds: number;
  durationS: number;
  log: (line: string) => void;
}

export interface TripRound {
  idleMsPerS: number;
  tripsMsPerS: number;
  trips: number;
  /** Process CPU per trip beyond the idle phase's, in ms. */
  perTripMs: number;
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

export async function measureTrips(opts: TripOptions): Promise<TripRound[]> {
  const store = new PgRateStore(opts.url);
  const filler = new Int32Array(2 * 1024 * 1024);
  let seed = 1;
  let sink = 0;
  const ticker = setInterval(() => {
    for (let i = 0; i < TICK_READS; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) | 0;
      sink += filler[(seed >>> 9) & (filler.length - 1)]!++;
    }
  }, TICK_MS);
  let n = 0;
  const batch = (): Reservation[] => Array.from({ length: opts.keys }, () => ({ key: `svc:bench:trip:${n++ % 100_000}`, want: 9, max: 100_000_000 }));
  // One phase: the same timer cadence either way, a reservation on each wake when `trips`.
  const phase = async (trips: boolean): Promise<{ msPerS: number; count: number }> => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let count = 0;
    while (performance.now() - t0 < opts.durationS * 1000) {
      await sleep(opts.everyMs);
      if (trips) {
        await store.reserve(batch(), WINDOW_MS);
        count++;
      }
    }
    return { msPerS: cpuMs(cpu0) / ((performance.now() - t0) / 1000), count };
  };
  try {
    await store.reserve(batch(), WINDOW_MS);
    await phase(false);
    const rounds: TripRound[] = [];
    for (let r = 0; r < opts.rounds; r++) {
      const idle = await phase(false);
      const busy = await phase(true);
      const seconds = opts.durationS;
      const round = { idleMsPerS: idle.msPerS, tripsMsPerS: busy.msPerS, trips: busy.count, perTripMs: ((busy.msPerS - idle.msPerS) * seconds) / busy.count };
      opts.log(`round ${r + 1}: idle ${round.idleMsPerS.toFixed(1)} ms/s, with trips ${round.tripsMsPerS.toFixed(1)} ms/s, ${round.trips} trips: ${round.perTripMs.toFixed(2)} ms a trip`);
      rounds.push(round);
    }
    return rounds;
  } finally {
    clearInterval(ticker);
    await store.close();
    // Read once so the filler's reads are not optimised away.
    if (sink === -1) console.log(sink);
  }
}

if (isMain(import.meta.url)) {
  const args = benchArgs<'metadata-database-url' | 'keys' | 'every-ms'>(3, { 'metadata-database-url': undefined, keys: '35', 'every-ms': '250' });
  const url = args.extra('metadata-database-url');
  if (url === undefined) {
    console.error('rate-trips: --metadata-database-url is required (the store creates its table in that database)');
    process.exit(2);
  }
  const opts: TripOptions = {
    url,
    keys: Number(args.extra('keys')),
    everyMs: Number(args.extra('every-ms')),
    rounds: args.rounds,
    durationS: args.durationSeconds,
    log: (line) => console.error(`[bench:rate-trips] ${line}`),
  };
  const rounds = await measureTrips(opts);
  const report = [
    `# Rate-limit reservation trips: ${opts.keys} keys every ${opts.everyMs} ms`,
    '',
    `${opts.rounds} rounds of ${opts.durationS} s without trips then ${opts.durationS} s with them; the process is woken every ${TICK_MS} ms for ${TICK_READS} random reads of 8 MiB.`,
    '',
    '| round | idle CPU ms/s | with trips ms/s | trips | CPU per trip (ms) |',
    '|---|---|---|---|---|',
    ...rounds.map((r, i) => `| ${i + 1} | ${r.idleMsPerS.toFixed(1)} | ${r.tripsMsPerS.toFixed(1)} | ${r.trips} | ${r.perTripMs.toFixed(2)} |`),
    '',
    `Median CPU per trip: **${median(rounds.map((r) => r.perTripMs)).toFixed(2)} ms**.`,
  ].join('\n');
  writeBenchReport(repoRootOf(import.meta.url), 'rate-trips', report, args.quick, args.out);
}
