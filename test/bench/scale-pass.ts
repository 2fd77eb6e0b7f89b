/**
 * One pass of the metadata scale run on one database: creates the generated tables, starts the
 * engine, and times the metadata operations, the role schemas and the incremental changes (see
 * scale.ts). Every answer is checked: a failed operation or a query with `errors` is recorded in
 * `errors` (and fails the run), never timed as if it had worked.
 */
import { readFileSync } from 'node:fs';
import { getIntrospectionQuery } from 'graphql';
import pg from 'pg';
import { INTROSPECT_SQL } from '../../plugins/db/postgres/introspect-sql.js';
import type { ClusterProfile } from './cluster.js';
import { inspectorUrl, liveHeap } from './live-heap.js';
import { freePort, logTail, processCpuMicros } from './proc.js';
import { ADMIN_SECRET, postJson, type EngineProcess } from './engine-process.js';
import { createExtraTable, createScaleTables, roleName, roleQuery, scaleTables } from './scale-schema.js';

export interface ScalePassOptions {
  profile: ClusterProfile;
  databaseUrl: string;
  tables: number;
  roles: number;
  quick: boolean;
  log(message: string): void;
  /** Starts the engine with these extra Node options. */
  startEngine(nodeOptions: string[]): Promise<EngineProcess>;
}

/** Wall-clock from the client, and the engine process's CPU time (10 ms ticks) over the same call. */
export interface Timed {
  ms: number;
  cpuMs: number;
}

export interface RoleTiming {
  role: string;
  introspection: Timed;
  firstQuery: Timed;
  secondQuery: Timed;
}

export interface IncrementalTiming {
  table: string;
  track: Timed;
  relationship: Timed;
  permission: Timed;
  /** The role's first query on the new table (its schema is rebuilt after the change). */
  firstQuery: Timed;
}

export interface CatalogPlan {
  totalCost: number;
  jitAboveCost: number;
  /** EXPLAIN ANALYZE of the plain statement under the database's settings. */
  jitMs: number | null;
  executionMs: number;
  /** The same statement with `jit = off`, as the engine sends it. */
  executionJitOffMs: number;
}

export interface ScalePass {
  profile: ClusterProfile;
  tables: number;
  roles: number;
  metadataBytes: number;
  createTablesMs: number;
  engineStartMs: number;
  replace: Timed;
  reload: Timed[];
  rssAfterReplaceMb: number;
  rssRolesWarmMb: number;
  /** Live heap after a full GC: what the snapshot and the built role schemas really hold. */
  heapAfterReplaceMb: number;
  heapRolesWarmMb: number;
  /**
   * RSS right after that full GC: what the engine holds with every role warm. The RSS before it
   * is the peak the builds and introspection answers left, which V8 keeps until a major GC runs.
   */
  rssRolesWarmAfterGcMb: number;
  /** Then, V8's heap as committed (live and free pages) and the memory outside it (Buffers): where that RSS is. */
  heapCommittedRolesWarmMb: number;
  externalRolesWarmMb: number;
  /** The resident part of the C heap's main arena (`[heap]`: glibc's brk heap), at the same moment. */
  mallocHeapRolesWarmMb: number;
  roleTimings: RoleTiming[];
  incremental: IncrementalTiming[];
  catalogPlan: CatalogPlan | null;
  errors: string[];
}

const now = () => performance.now();

/**
 * A keep-alive socket the engine closed as idle while the bench paused (a full GC of a big heap
 * through the inspector takes seconds) fails the next request at once, before the engine saw it:
 * that request is sent again on a new connection.
 */
async function post(url: string, body: unknown, headers?: Record<string, string>): ReturnType<typeof postJson> {
  try {
    return await postJson(url, body, headers);
  } catch (e) {
    const code = ((e as Error).cause as { code?: string } | undefined)?.code;
    if (code !== 'UND_ERR_SOCKET') throw e;
    return postJson(url, body, headers);
  }
}
const show = (t: Timed) => `${t.ms.toFixed(0)} ms (engine CPU ${t.cpuMs.toFixed(0)} ms)`;

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** The resident size of the process's `[heap]` mapping (memory malloc took with brk), from smaps. */
function mallocHeapMb(pid: number): number {
  const smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const at = smaps.search(/ \[heap\]\n/);
  if (at < 0) return 0;
  const m = /\nRss:\s+(\d+) kB/.exec(smaps.slice(at));
  return m ? Number(m[1]) / 1024 : NaN;
}

export async function runScalePass(o: ScalePassOptions): Promise<ScalePass> {
  const errors: string[] = [];
  let t = now();
  await createScaleTables(o.databaseUrl, o.tables);
  const createTablesMs = now() - t;
  o.log(`${o.profile}: ${o.tables} tables created in ${createTablesMs.toFixed(0)} ms`);

  t = now();
  const engine = await o.startEngine([`--inspect=127.0.0.1:${await freePort()}`]);
  const engineStartMs = now() - t;
  try {
    const timed = async <T>(call: () => Promise<T>): Promise<[T, Timed]> => {
      const cpu = processCpuMicros(engine.pid);
      const start = now();
      const value = await call();
      return [value, { ms: now() - start, cpuMs: (processCpuMicros(engine.pid) - cpu) / 1000 }];
    };
    const metadataCall = async (body: unknown): Promise<Timed> => {
      const [res, t] = await timed(() => post(engine.url + '/v1/metadata', body));
      if (res.status !== 200) throw new Error(`${(body as { type: string }).type} failed: ${JSON.stringify(res.body).slice(0, 500)}`);
      return t;
    };
    const exported = (await postJson(engine.url + '/v1/metadata', { type: 'export_metadata', args: {} })).body;
    const source = exported.sources.find((s: { name: string }) => s.name === 'default');
    source.tables = scaleTables(o.tables, o.roles);
    const metadataBytes = JSON.stringify(exported).length;

    const replace = await metadataCall({ type: 'replace_metadata', args: exported });
    o.log(`${o.profile}: replace_metadata (${(metadataBytes / 2 ** 20).toFixed(1)} MiB) ${show(replace)}`);
    const rssAfterReplaceMb = rssMb(engine.pid);
    const inspector = await inspectorUrl(engine.logFile);
    const heapAfterReplaceMb = (await liveHeap(inspector)).heapUsedMb;

    const graphql = async (role: string | null, query: string): Promise<Timed> => {
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-svc-admin-secret': ADMIN_SECRET };
      if (role !== null) Object.assign(headers, { 'x-svc-role': role, 'x-svc-user-id': '1' });
      const [res, t] = await timed(() => post(engine.url + '/v1/graphql', { query }, headers));
      if (res.status !== 200 || res.body?.errors) errors.push(`${role ?? 'admin'}: ${JSON.stringify(res.body).slice(0, 300)}`);
      return t;
    };

    const roles = Array.from({ length: o.roles }, (_, k) => k + 1);
    const introspection = getIntrospectionQuery();
    const introspectionTimes = new Map<number, Timed>();
    for (const r of roles) introspectionTimes.set(r, await graphql(roleName(r), introspection));

    // A reload makes a new snapshot: every role's schema is cold again for its first query.
    const reload: Timed[] = [];
    for (let i = 0; i < 3; i++) reload.push(await metadataCall({ type: 'reload_metadata', args: { reload_sources: true } }));
    o.log(`${o.profile}: reload_metadata ${reload.map(show).join(', ')}`);
    const roleTimings: RoleTiming[] = [];
    for (const r of roles) {
      const firstQuery = await graphql(roleName(r), roleQuery(r, o.tables));
      const secondQuery = await graphql(roleName(r), roleQuery(r, o.tables));
      roleTimings.push({ role: roleName(r), introspection: introspectionTimes.get(r)!, firstQuery, secondQuery });
    }
    const rssRolesWarmMb = rssMb(engine.pid);
    const warm = await liveHeap(inspector);
    const heapRolesWarmMb = warm.heapUsedMb;
    const rssRolesWarmAfterGcMb = warm.rssMb;
    const mallocHeapRolesWarmMb = mallocHeapMb(engine.pid);
    o.log(
      `${o.profile}: roles warm, RSS ${rssRolesWarmMb.toFixed(0)} MB, ${rssRolesWarmAfterGcMb.toFixed(0)} MB after a full GC (after replace ${rssAfterReplaceMb.toFixed(0)} MB); live heap ${heapRolesWarmMb.toFixed(0)} MB (after replace ${heapAfterReplaceMb.toFixed(0)} MB)`,
    );

    const incremental: IncrementalTiming[] = [];
    for (let k = 1; k <= (o.quick ? 1 : 3); k++) {
      const name = `extra_${k}`;
      await createExtraTable(o.databaseUrl, name);
      const table = { schema: 'public', name };
      const role = roleName(1 + ((k - 1) % o.roles));
      const track = await metadataCall({ type: 'pg_track_table', args: { source: 'default', table } });
      const relationship = await metadataCall({
        type: 'pg_create_object_relationship',
        args: { source: 'default', table, name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } },
      });
      const permission = await metadataCall({
        type: 'pg_create_select_permission',
        args: { source: 'default', table, role, permission: { columns: ['id', 'name'], filter: { owner_id: { _eq: 'X-Svc-User-Id' } } } },
      });
      const firstQuery = await graphql(role, `query { ${name}(limit: 5) { id name parent { id } } }`);
      incremental.push({ table: name, track, relationship, permission, firstQuery });
      o.log(`${o.profile}: ${name}: track ${show(track)}, relationship ${show(relationship)}, permission ${show(permission)}, ${role}'s first query ${show(firstQuery)}`);
    }
    // The role whose table the queries read must still answer after the changes.
    await graphql(roleName(1), roleQuery(1, o.tables));

    const catalogPlan = await planCatalog(o.databaseUrl);
    return {
      profile: o.profile,
      tables: o.tables,
      roles: o.roles,
      metadataBytes,
      createTablesMs,
      engineStartMs,
      replace,
      reload,
      rssAfterReplaceMb,
      rssRolesWarmMb,
      heapAfterReplaceMb,
      heapRolesWarmMb,
      rssRolesWarmAfterGcMb,
      heapCommittedRolesWarmMb: warm.heapTotalMb,
      externalRolesWarmMb: warm.externalMb,
      mallocHeapRolesWarmMb,
      roleTimings,
      incremental,
      catalogPlan,
      errors,
    };
  } catch (e) {
    // The engine's own last words (an out-of-memory crash, say) go with the error.
    errors.push((e as Error).message, `engine log:\n${logTail(engine.logFile, 15)}`);
    (e as Error).message += `\n${errors.at(-1)}`;
    throw Object.assign(e as Error, { errors });
  } finally {
    await engine.stop();
  }
}

/** The catalog statement's plan under the database's own settings, and its time with JIT off. */
async function planCatalog(databaseUrl: string): Promise<CatalogPlan> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const jitAboveCost = Number((await client.query<{ v: string }>(`SELECT current_setting('jit_above_cost') AS v`)).rows[0]!.v);
    const explain = async (): Promise<{ Plan: { 'Total Cost': number }; JIT?: { Timing?: { Total?: number } }; 'Execution Time': number }> => {
      const res = await client.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${INTROSPECT_SQL}`);
      return (res.rows[0]!['QUERY PLAN'] as [never])[0];
    };
    const plain = await explain();
    await client.query('SET jit = off');
    const off = await explain();
    return {
      totalCost: plain.Plan['Total Cost'],
      jitAboveCost,
      jitMs: plain.JIT?.Timing?.Total ?? null,
      executionMs: plain['Execution Time'],
      executionJitOffMs: off['Execution Time'],
    };
  } finally {
    await client.end();
  }
}
