/**
 * Action round-trip benchmark: what the engine adds to a handler call. The same handler (a local
 * HTTP server answering at once with a fixed JSON object) is called (a) directly, with the payload
 * the engine would send, and (b) through a synchronous action mutation on /v1/graphql (auth, plan
 * cache, payload, outgoing client, output check and shaping), and (c) the same action with a
 * relationship to a table resolved from the output (one SQL statement more). Sequential requests
 * on one keep-alive connection each; rounds interleave the variants to spread noise. Reported:
 * mean and p50/p95 per request and the overhead over the direct call.
 *
 *   npx tsx test/bench/actions.ts [--quick] [--requests N] [--rounds N]
 *
 * Figures taken on a shared machine are noisy; take the recorded ones on a quiet machine.
 */
import { parseArgs } from 'node:util';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { createTestDatabase } from '../helpers/database.js';
import { metadata, startTestEngine } from '../helpers/engine.js';

export interface LatencySummary {
  requests: number;
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
}

export interface ActionsBenchResult {
  mode: 'quick' | 'full';
  direct: LatencySummary;
  action: LatencySummary;
  actionWithRelationship: LatencySummary;
  overheadMs: number;
  relationshipOverheadMs: number;
  /** Answers that were not what the variant expects (must be 0). */
  wrongAnswers: number;
}

const OUTPUT = { id: 1, name: 'bench', tags: ['a', 'b'] };

function summary(samples: number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { requests: samples.length, meanMs: samples.reduce((a, b) => a + b, 0) / samples.length, p50Ms: at(0.5), p95Ms: at(0.95) };
}

export async function runActionsBench(mode: 'quick' | 'full', overrides: { requests?: number; rounds?: number } = {}): Promise<ActionsBenchResult> {
  const requests = overrides.requests ?? (mode === 'quick' ? 50 : 2000);
  const rounds = overrides.rounds ?? (mode === 'quick' ? 1 : 5);
  const handlerBody = JSON.stringify(OUTPUT);
  const handler = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(handlerBody);
    });
  });
  await new Promise<void>((r) => handler.listen(0, '127.0.0.1', r));
  const handlerUrl = `http://127.0.0.1:${(handler.address() as AddressInfo).port}/`;
  const db = await createTestDatabase('bench_actions', `CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL); INSERT INTO author (name) VALUES ('ann');`);
  const engine = await startTestEngine({ databaseUrl: db.url });
  const agent = new Agent({ connections: 1 });
  try {
    const ok = await metadata(engine, {
      type: 'bulk',
      args: [
        { type: 'pg_track_table', args: { table: 'author' } },
        {
          type: 'set_custom_types',
          args: {
            objects: [
              {
                name: 'Out',
                fields: [{ name: 'id', type: 'Int!' }, { name: 'name', type: 'String!' }, { name: 'tags', type: '[String!]' }],
                relationships: [{ name: 'author', type: 'object', remote_table: 'author', field_mapping: { id: 'id' } }],
              },
            ],
          },
        },
        { type: 'create_action', args: { name: 'bench', definition: { handler: handlerUrl, arguments: [{ name: 'n', type: 'Int!' }], output_type: 'Out!' } } },
      ],
    });
    if (ok.status !== 200) throw new Error(JSON.stringify(ok.body));
    const plainQuery = 'mutation($n: Int!) { bench(n: $n) { id name tags } }';
    const relQuery = 'mutation($n: Int!) { bench(n: $n) { id name author { name } } }';
    const payload = (n: number) =>
      JSON.stringify({ action: { name: 'bench' }, input: { n }, session_variables: { 'x-svc-role': 'admin' }, request_query: plainQuery });
    let wrong = 0;
    const variants = {
      direct: async (n: number) => {
        const r = await request(handlerUrl, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: payload(n) });
        const body = (await r.body.json()) as typeof OUTPUT;
        if (body.id !== 1) wrong++;
      },
      action: async (n: number) => {
        const r = await request(`${engine.url}/v1/graphql`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: plainQuery, variables: { n } }) });
        const body = (await r.body.json()) as { data?: { bench?: { id: number } } };
        if (body.data?.bench?.id !== 1) wrong++;
      },
      actionWithRelationship: async (n: number) => {
        const r = await request(`${engine.url}/v1/graphql`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: relQuery, variables: { n } }) });
        const body = (await r.body.json()) as { data?: { bench?: { author?: { name: string } } } };
        if (body.data?.bench?.author?.name !== 'ann') wrong++;
      },
    };
    const samples: Record<keyof typeof variants, number[]> = { direct: [], action: [], actionWithRelationship: [] };
    // Warm-up: connections, plan cache, JIT.
    for (const run of Object.values(variants)) for (let i = 0; i < 20; i++) await run(i);
    wrong = 0;
    const perRound = Math.ceil(requests / rounds);
    for (let round = 0; round < rounds; round++) {
      for (const [name, run] of Object.entries(variants) as Array<[keyof typeof variants, (n: number) => Promise<void>]>) {
        for (let i = 0; i < perRound; i++) {
          const t = performance.now();
          await run(i);
          samples[name].push(performance.now() - t);
        }
      }
    }
    const direct = summary(samples.direct);
    const action = summary(samples.action);
    const actionWithRelationship = summary(samples.actionWithRelationship);
    return {
      mode,
      direct,
      action,
      actionWithRelationship,
      overheadMs: action.meanMs - direct.meanMs,
      relationshipOverheadMs: actionWithRelationship.meanMs - action.meanMs,
      wrongAnswers: wrong,
    };
  } finally {
    await agent.close();
    await engine.close();
    await db.drop();
    await new Promise<void>((r) => handler.close(() => r()));
  }
}

export function formatActionsBench(r: ActionsBenchResult): string {
  const line = (name: string, s: LatencySummary) =>
    `  ${name.padEnd(28)} mean ${s.meanMs.toFixed(3)} ms  p50 ${s.p50Ms.toFixed(3)} ms  p95 ${s.p95Ms.toFixed(3)} ms  (${s.requests} requests)`;
  return [
    `actions bench (${r.mode})`,
    line('handler called directly', r.direct),
    line('sync action', r.action),
    line('sync action + relationship', r.actionWithRelationship),
    `  action round-trip overhead: ${r.overheadMs.toFixed(3)} ms per request; relationship adds ${r.relationshipOverheadMs.toFixed(3)} ms`,
    `  wrong answers: ${r.wrongAnswers}`,
  ].join('\n');
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, requests: { type: 'string' }, rounds: { type: 'string' } } });
  const mode = values.quick ? 'quick' : 'full';
  const result = await runActionsBench(mode, {
    ...(values.requests ? { requests: Number(values.requests) } : {}),
    ...(values.rounds ? { rounds: Number(values.rounds) } : {}),
  });
  console.log(formatActionsBench(result));
  if (mode === 'full') {
    const out = join(dirname(fileURLToPath(import.meta.url)), 'results', `actions-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
    console.log(`written ${out}`);
  }
}
