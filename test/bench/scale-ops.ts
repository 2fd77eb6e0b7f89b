/**
 * `npx tsx test/bench/scale-ops.ts [--tables 1000] [--roles 20] [--rounds 5] [--warm] [--profile <file>]`:
 * the cost of one incremental metadata operation at scale (issue 12, item 5: < 100 ms), in one
 * process. An engine in this process over a fresh database holding the scale schema
 * (test/bench/scale-schema.ts) gets the whole metadata by replace_metadata, then, per round, a new
 * table is tracked, given an object relationship and a select permission, and that role's first
 * query runs. Each call is timed by wall clock and by this process's CPU time (engine and client
 * share the process; the client's part is one small fetch). `--warm` first builds every role's
 * schema (as a serving engine would have them); `--no-query` leaves the role's query out. With
 * `--warm`, each round also times a query of a role the round did not touch (`other`): warm when
 * its schema was carried across the round's operations (core/schema-cache/carry.ts), a whole
 * schema build otherwise. `--profile` writes a V8 CPU profile of the rounds
 * only (summarise with `tsx test/bench/profile-summary.ts <file> 30 core/metadata/service`).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createTestDatabase } from '../helpers/database.js';
import { metadata, graphql, startTestEngine } from '../helpers/engine.js';
import { createExtraTable, createScaleTables, roleName, roleQuery, scaleTables } from './scale-schema.js';

const { values } = parseArgs({
  options: {
    tables: { type: 'string', default: '1000' },
    roles: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '5' },
    warm: { type: 'boolean', default: false },
    'no-query': { type: 'boolean', default: false },
    profile: { type: 'string' },
  },
});
const tables = Number(values.tables);
const roles = Number(values.roles);
const rounds = Number(values.rounds);
const log = (m: string) => console.log(`[scale-ops ${new Date().toISOString().slice(11, 19)}] ${m}`);

interface Timed {
  ms: number;
  cpuMs: number;
}
const timed = async (call: () => Promise<void>): Promise<Timed> => {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await call();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - start, cpuMs: (used.user + used.system) / 1000 };
};
const show = (t: Timed) => `${t.ms.toFixed(0)} ms (CPU ${t.cpuMs.toFixed(0)})`;

const db = await createTestDatabase('scale_ops');
const engine = await startTestEngine({ databaseUrl: db.url });
try {
  await createScaleTables(db.url, tables);
  const ok = async (body: unknown): Promise<void> => {
    const res = await metadata(engine, body);
    if (res.status !== 200) throw new Error(`${(body as { type: string }).type}: ${JSON.stringify(res.body).slice(0, 400)}`);
  };
  const exported = (await metadata(engine, { type: 'export_metadata', args: {} })).body;
  exported.sources.find((s: { name: string }) => s.name === 'default').tables = scaleTables(tables, roles);
  log(`replace_metadata ${show(await timed(() => ok({ type: 'replace_metadata', args: exported })))}`);
  const query = async (role: string, text: string): Promise<void> => {
    const res = await graphql(engine, text, undefined, { 'x-svc-role': role, 'x-svc-user-id': '1' });
    if (res.status !== 200 || res.body.errors) throw new Error(`${role}: ${JSON.stringify(res.body).slice(0, 400)}`);
  };
  if (values.warm) {
    const t = await timed(async () => {
      for (let r = 1; r <= roles; r++) await query(roleName(r), roleQuery(r, tables));
    });
    log(`${roles} role schemas warm ${show(t)}`);
  }

  const profiler = values.profile ? new Session() : null;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
  }
  const rows: Array<{ track: Timed; relationship: Timed; permission: Timed; firstQuery: Timed; other: Timed }> = [];
  for (let k = 1; k <= rounds; k++) {
    const name = `extra_${k}`;
    await createExtraTable(db.url, name);
    const table = { schema: 'public', name };
    const role = roleName(1 + ((k - 1) % roles));
    const track = await timed(() => ok({ type: 'pg_track_table', args: { source: 'default', table } }));
    const relationship = await timed(() =>
      ok({ type: 'pg_create_object_relationship', args: { source: 'default', table, name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } } }),
    );
    const permission = await timed(() =>
      ok({
        type: 'pg_create_select_permission',
        args: { source: 'default', table, role, permission: { columns: ['id', 'name'], filter: { owner_id: { _eq: 'X-Svc-User-Id' } } } },
      }),
    );
    const firstQuery = values['no-query'] ? { ms: 0, cpuMs: 0 } : await timed(() => query(role, `query { ${name}(limit: 5) { id name parent { id } } }`));
    // A role no round gives a permission to (while rounds < roles): its schema should stay warm.
    const otherRole = roles - ((k - 1) % roles);
    const other =
      values.warm && !values['no-query'] ? await timed(() => query(roleName(otherRole), roleQuery(otherRole, tables))) : { ms: 0, cpuMs: 0 };
    rows.push({ track, relationship, permission, firstQuery, other });
    log(
      `${name}: track ${show(track)}, relationship ${show(relationship)}, permission ${show(permission)}, ${role}'s first query ${show(firstQuery)}, ` +
        `${roleName(otherRole)}'s query ${show(other)}`,
    );
  }
  if (profiler) {
    const { profile } = await profiler.post('Profiler.stop');
    writeFileSync(values.profile!, JSON.stringify(profile));
    profiler.disconnect();
    log(`profile: ${values.profile}`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const key of ['track', 'relationship', 'permission', 'firstQuery', 'other'] as const) {
    log(`median ${key}: ${median(rows.map((r) => r[key].ms)).toFixed(0)} ms, CPU ${median(rows.map((r) => r[key].cpuMs)).toFixed(0)} ms`);
  }
  log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  await engine.close();
  await db.drop();
}
