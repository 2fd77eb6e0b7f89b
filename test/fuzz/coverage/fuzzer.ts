/**
 * The coverage-guided loop: take an input from the corpus, mutate it (mutate.ts), run it, read
 * V8's block coverage of the engine (coverage.ts), keep the input when it reached something new,
 * and check the properties on every answer. Time-bounded; the tally is what docs/security.md
 * reports. Findings are collected (with the request) rather than thrown, so one run reports all.
 */
import type { CoverageMap } from './coverage.js';
import { mutate, type FuzzInput, type Rng } from './mutate.js';

export interface FuzzTally {
  seed: number;
  seconds: number;
  /** Inputs run (the seeds included). */
  tried: number;
  /** Inputs that reached new coverage and joined the corpus (the seeds not counted). */
  kept: number;
  corpusSize: number;
  /** Engine blocks reached, and block × hit-count-bucket features. */
  blocks: number;
  features: number;
  answered: number;
  refusals: Record<string, number>;
  /** SQLSTATEs PostgreSQL answered the engine's statements with (seen at the driver). */
  sqlStates: Record<string, number>;
  findings: string[];
}

export interface Target {
  /** Runs one input; the answer's text. */
  run(input: FuzzInput): Promise<string>;
  /** Checks the properties for one answer; returns a finding's description, or undefined. */
  check(input: FuzzInput, answer: string): Promise<string | undefined>;
  /** Whether the input got past parsing and validation (so its mutations reach the compiler). */
  deep(answer: string): boolean;
}

export async function fuzz(
  target: Target,
  coverage: CoverageMap,
  seeds: readonly FuzzInput[],
  rng: Rng,
  options: { seconds: number; seed: number; maxFindings?: number },
): Promise<{ tally: FuzzTally; corpus: FuzzInput[] }> {
  const started = Date.now();
  const tally: FuzzTally = {
    seed: options.seed, seconds: 0, tried: 0, kept: 0, corpusSize: 0, blocks: 0, features: 0, answered: 0,
    refusals: {}, sqlStates: {}, findings: [],
  };
  const corpus: FuzzInput[] = [];
  /** Corpus entries that got past validation: most parents are taken from here. */
  const deep: FuzzInput[] = [];

  const runOne = async (input: FuzzInput): Promise<{ fresh: number; deep: boolean }> => {
    tally.tried++;
    let answer: string;
    try {
      answer = await target.run(input);
    } catch (e) {
      tally.findings.push(`the request failed: ${(e as Error).message}\n  request: ${JSON.stringify(input).slice(0, 2000)}`);
      return { fresh: 0, deep: false };
    }
    const finding = await target.check(input, answer);
    if (finding) tally.findings.push(`${finding}\n  request: ${JSON.stringify(input).slice(0, 2000)}\n  answer: ${answer.slice(0, 1000)}`);
    return { fresh: await coverage.take(), deep: target.deep(answer) };
  };

  // Every seed runs once; each becomes part of the corpus whatever it covered.
  for (const seed of seeds) {
    if ((await runOne(seed)).deep) deep.push(seed);
    corpus.push(seed);
  }
  const deadline = started + options.seconds * 1000;
  const maxFindings = options.maxFindings ?? 20;
  while (Date.now() < deadline && tally.findings.length < maxFindings) {
    // Recent discoveries are where new paths are most likely just one step further.
    const recent = corpus.length > seeds.length && rng.chance(0.4);
    const pool = deep.length > 0 && rng.chance(0.7) ? deep : corpus;
    const parent = recent ? corpus[seeds.length + rng.int(corpus.length - seeds.length)]! : rng.pick(pool);
    const child = mutate(rng, parent, rng.chance(0.3) ? rng.pick(corpus) : undefined);
    const outcome = await runOne(child);
    if (outcome.fresh > 0) {
      corpus.push(child);
      if (outcome.deep) deep.push(child);
      tally.kept++;
    }
  }
  tally.seconds = Math.round((Date.now() - started) / 1000);
  tally.corpusSize = corpus.length;
  Object.assign(tally, coverage.size);
  return { tally, corpus };
}
