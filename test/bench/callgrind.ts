/**
 * Instructions per request, by where they run: the engine under `valgrind --tool=callgrind`
 * (Debian's valgrind package; not installed by CI, this is a tool for hand use). On a shared
 * 2-core host CPU time moves by several percent from run to run; instruction counts do not move
 * with what else runs, so a change of a few percent in the engine's own work shows here when a
 * timed bench cannot resolve it. What they leave out is the time of cache misses and syscalls.
 *
 * The engine runs uninstrumented (valgrind's core only) until a block is measured: for each
 * scenario (an API-limit set, or none), `--warm` requests, then `--requests` requests counted,
 * sent one at a time with Node's fetch (which asks for gzip, as browsers do; `--plain` sends no
 * Accept-Encoding). Each block's instructions are split into V8's compiler, its GC, zlib and the
 * rest ("work": the engine's code, V8's builtins, libuv): JIT compilation and GC move a lot from
 * block to block, most of all after a metadata change, so compare "work". That still moves by up
 * to ~5% between blocks of the same scenario (code that runs unoptimized for a while after a
 * metadata change is counted in builtins), so scenarios run `--repeat` times, interleaved, and a
 * difference is read across the repeats.
 *
 *   npx tsx test/bench/callgrind.ts [--query Q7] [--scenarios none,static,user] [--requests 2000] [--warm 3000] [--repeat 2] [--plain]
 *   npm run bench:callgrind -- ...
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ADMIN_HEADERS, configureEngine, engineEnv, postJson, waitHealthy } from './engine-process.js';
import { commandExists, freePort, startServer } from './proc.js';
import { LIMITS, RATE_ONLY, WITH_RATE, WITH_ROLE_RATE } from './limits.js';
import { QUERIES } from './queries.js';
import { isMain, repoRootOf, withBenchDatabase, writeBenchReport } from './round-robin.js';

const SCENARIOS: Record<string, Record<string, unknown> | null> = {
  none: null,
  static: LIMITS,
  role: WITH_ROLE_RATE,
  'role-only': { rate_limit: WITH_ROLE_RATE.rate_limit },
  user: WITH_RATE,
  'user-only': RATE_ONLY,
};

const GROUPS: ReadonlyArray<[string, RegExp]> = [
  ['zlib', /deflate|inflate|build_tree|pqdownheap|fill_window|compress_block|scan_tree|send_tree|_tr_|crc32|adler32|longest_match/],
  ['compiler', /compiler::|maglev|baseline::|turboshaft|interpreter::Bytecode|Parser|Scanner|BytecodeGenerator|CodeGenerator|Assembler|Zone::/],
  ['gc', /Heap::|MarkCompact|Scavenger|Sweeper|ConcurrentMarking|Marking|Evacuat|MinorMC|RememberedSet|SlotSet|PagedSpace|MemoryAllocator|GCTracer|Worklist/],
];

export interface Block {
  scenario: string;
  /** Instructions per request: in all, and by group ("work" is the rest). */
  total: number;
  groups: Record<string, number>;
}

/** Instructions of one dump by group, from callgrind_annotate's per-function list. */
function groupsOf(dump: string, requests: number): Block['groups'] & { total: number } {
  const out = execFileSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', '--auto=no', dump], { maxBuffer: 256 * 1024 * 1024 }).toString();
  const sums: Record<string, number> = { work: 0, zlib: 0, compiler: 0, gc: 0 };
  let total = 0;
  for (const line of out.split('\n')) {
    const m = /^\s*([\d,]+) \([^)]*\)\s+(.*)$/.exec(line);
    if (!m) continue;
    const count = Number(m[1]!.replace(/,/g, ''));
    if (m[2]!.includes('PROGRAM TOTALS')) {
      total = count;
      continue;
    }
    const fn = m[2]!.replace(/ \[[^\]]*\]$/, '');
    const group = GROUPS.find(([, re]) => re.test(fn))?.[0] ?? 'work';
    sums[group]! += count;
  }
  for (const k of Object.keys(sums)) sums[k] = sums[k]! / requests;
  return { ...sums, total: total / requests };
}

export async function runCallgrindBench(opts: {
  repoRoot: string;
  queryId: string;
  scenarios: readonly string[];
  requests: number;
  warm: number;
  repeat: number;
  gzip: boolean;
  log: (m: string) => void;
}): Promise<Block[]> {
  if (!(await commandExists('valgrind'))) throw new Error('valgrind is not installed (Debian: apt-get install valgrind)');
  const q = QUERIES.find((x) => x.id === opts.queryId);
  if (!q) throw new Error(`no query ${opts.queryId}`);
  return withBenchDatabase({ rounds: 1, durationSeconds: 1, connections: 1, log: opts.log }, 'callgrind', async ({ cluster, workDir, onStop }) => {
    execFileSync(process.execPath, [join(opts.repoRoot, 'scripts/build.js'), '--if-needed'], { cwd: opts.repoRoot, stdio: 'inherit' });
    const port = await freePort();
    const out = join(workDir, 'callgrind.out');
    const engineArgs = ['--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file', `--callgrind-out-file=${out}`, process.execPath, join(opts.repoRoot, 'bin/svc-graphql-engine.js'), 'serve'];
    const server = startServer('valgrind', engineArgs, join(workDir, 'engine.log'), { cwd: opts.repoRoot, env: engineEnv(cluster.url, port) });
    onStop(server.stop);
    const url = `http://127.0.0.1:${port}`;
    await waitHealthy(url, server, '/healthz', 15 * 60_000);
    await configureEngine(url, 10);
    // A fixed sequence of variables, so that every block sends the same kind of requests.
    let seed = 12345;
    const int = (min: number, max: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % (max - min + 1)) + min;
    const send = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const variables: Record<string, number | string> = {};
        for (const v of q.vars) variables[v.name] = v.kind === 'int' ? int(v.min, v.max) : `${v.prefix}${i}`;
        const headers: Record<string, string> = { ...ADMIN_HEADERS, 'accept-encoding': opts.gzip ? 'gzip' : 'identity' };
        if (q.userIdVar) Object.assign(headers, { 'x-svc-role': 'user', 'x-svc-user-id': String(variables[q.userIdVar]) });
        const res = await fetch(`${url}/v1/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: q.graphql, variables }) });
        const body = (await res.json()) as { errors?: unknown };
        if (body.errors) throw new Error(`${q.id}: ${JSON.stringify(body.errors)}`);
      }
    };
    const control = (...args: string[]) => execFileSync('callgrind_control', [...args, String(server.pid)], { stdio: 'pipe' });
    const blocks: Block[] = [];
    let dumps = 0;
    for (let r = 0; r < opts.repeat; r++) {
      for (const scenario of opts.scenarios) {
        const limits = SCENARIOS[scenario];
        if (limits === undefined) throw new Error(`no scenario ${scenario} among ${Object.keys(SCENARIOS).join(', ')}`);
        const res = await postJson(`${url}/v1/metadata`, limits === null ? { type: 'remove_api_limits', args: {} } : { type: 'set_api_limits', args: limits });
        if (res.status !== 200) throw new Error(JSON.stringify(res.body));
        await send(opts.warm);
        control('-i', 'on');
        // The first requests after instrumentation starts run code valgrind translates anew.
        await send(50);
        control('-z');
        await send(opts.requests);
        control('-d', scenario);
        control('-i', 'off');
        const { total, ...groups } = groupsOf(`${out}.${++dumps}`, opts.requests);
        blocks.push({ scenario, total, groups });
        opts.log(`${scenario}: ${Math.round(total)} instructions per request; ${Object.entries(groups).map(([g, n]) => `${g} ${Math.round(n)}`).join(', ')}`);
      }
    }
    return blocks;
  });
}

export function callgrindReport(blocks: readonly Block[], head: string): string {
  const names = ['work', 'zlib', 'compiler', 'gc'];
  return [
    head,
    '',
    `| block | scenario | instructions per request | ${names.join(' | ')} |`,
    `|---|---|---|${names.map(() => '---').join('|')}|`,
    ...blocks.map((b, i) => `| ${i + 1} | ${b.scenario} | ${Math.round(b.total)} | ${names.map((n) => Math.round(b.groups[n] ?? 0)).join(' | ')} |`),
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      query: { type: 'string', default: 'Q7' },
      scenarios: { type: 'string', default: 'none,static,user' },
      requests: { type: 'string', default: '2000' },
      warm: { type: 'string', default: '3000' },
      repeat: { type: 'string', default: '2' },
      plain: { type: 'boolean', default: false },
      out: { type: 'string' },
    },
  });
  const repoRoot = repoRootOf(import.meta.url);
  const opts = {
    repoRoot,
    queryId: values.query!,
    scenarios: values.scenarios!.split(',').map((s) => s.trim()),
    requests: Number(values.requests),
    warm: Number(values.warm),
    repeat: Number(values.repeat),
    gzip: !values.plain,
    log: (m: string) => console.log(`[bench:callgrind] ${m}`),
  };
  const blocks = await runCallgrindBench(opts);
  const head = `Instructions per ${opts.queryId} request under callgrind: ${opts.requests} requests per block after ${opts.warm} unmeasured, one at a time, ${opts.gzip ? 'Accept-Encoding: gzip' : 'no compression'}.`;
  writeBenchReport(repoRoot, 'callgrind', callgrindReport(blocks, head), false, values.out);
}
