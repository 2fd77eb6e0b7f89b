/** The Markdown report of a metadata scale run (`npm run bench:scale`), goals beside the figures. */
import type { ScalePass, Timed } from './scale-pass.js';

export interface ScaleRun {
  startedAt: string;
  finishedAt: string;
  mode: string;
  tables: number;
  roles: number;
  machine: { nproc: number; cpuModel: string; memGb: number; loadStart: number[]; loadEnd: number[]; node: string };
  passes: ScalePass[];
}

const GOALS = { replaceMs: 5000, firstQueryMs: 200, rssMb: 300, incrementalMs: 100 };

const ms = (x: number) => `${x.toFixed(0)} ms`;
/** Wall-clock, then the engine's own CPU time: on a loaded machine the second is the steadier. */
const wc = (t: Timed) => `${t.ms.toFixed(0)} ms (CPU ${t.cpuMs.toFixed(0)})`;
const stats = (ts: Timed[]) => {
  const wall = ts.map((t) => t.ms);
  const cpu = ts.map((t) => t.cpuMs);
  return `median ${ms(median(wall))} (CPU ${median(cpu).toFixed(0)}), max ${ms(max(wall))} (CPU ${max(cpu).toFixed(0)})`;
};
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const max = (xs: number[]) => Math.max(...xs);
const verdict = (value: number, goal: number) => (value < goal ? 'met' : '**not met**');

function passSection(p: ScalePass): string[] {
  const first = p.roleTimings.map((r) => r.firstQuery);
  const intro = p.roleTimings.map((r) => r.introspection);
  const second = p.roleTimings.map((r) => r.secondQuery);
  const incr = p.incremental.flatMap((i) => [i.track, i.relationship, i.permission]);
  const worst = (ts: Timed[]) => ts.reduce((a, b) => (b.ms > a.ms ? b : a));
  const lines = [
    `## PostgreSQL ${p.profile === 'tuned' ? 'tuned settings (jit off)' : "default settings (jit on)"}`,
    '',
    `${p.tables} tables, ${p.roles} roles, metadata ${(p.metadataBytes / 2 ** 20).toFixed(1)} MiB of JSON. Tables created in ${ms(p.createTablesMs)}; engine started in ${ms(p.engineStartMs)}.`,
    '',
    '| What | Figure | Goal |',
    '|---|---|---|',
    `| replace_metadata | ${wc(p.replace)} | < 5 s: ${verdict(p.replace.ms, GOALS.replaceMs)} |`,
    `| reload_metadata (3 runs) | ${p.reload.map(wc).join(', ')} | – |`,
    `| first introspection query per role (builds its schema) | ${stats(intro)} | – |`,
    `| first query per role after a reload (schema + plan + run) | ${stats(first)} | < 200 ms: ${verdict(max(first.map((t) => t.ms)), GOALS.firstQueryMs)} |`,
    `| second query per role | ${stats(second)} | – |`,
    `| RSS after replace / with every role warm | ${p.rssAfterReplaceMb.toFixed(0)} / ${p.rssRolesWarmMb.toFixed(0)} MB | < 300 MB: ${verdict(p.rssRolesWarmMb, GOALS.rssMb)} |`,
    `| RSS with every role warm, after a full GC (what the engine holds; the figure above is the builds' peak) | ${p.rssRolesWarmAfterGcMb.toFixed(0)} MB | < 300 MB: ${verdict(p.rssRolesWarmAfterGcMb, GOALS.rssMb)} |`,
    `| live heap after a full GC, after replace / with every role warm | ${p.heapAfterReplaceMb.toFixed(0)} / ${p.heapRolesWarmMb.toFixed(0)} MB | – |`,
    `| … V8 heap committed / memory outside it (Buffers) / C heap resident (\`[heap]\`), every role warm, after that GC | ${p.heapCommittedRolesWarmMb?.toFixed(0) ?? '–'} / ${p.externalRolesWarmMb?.toFixed(0) ?? '–'} / ${p.mallocHeapRolesWarmMb?.toFixed(0) ?? '–'} MB | – |`,
    `| incremental operation (slowest of track, relationship, permission) | ${incr.length ? wc(worst(incr)) : '–'} | < 100 ms: ${incr.length ? verdict(worst(incr).ms, GOALS.incrementalMs) : '–'} |`,
    '',
    '| New table | pg_track_table | pg_create_object_relationship | pg_create_select_permission | role\'s first query |',
    '|---|---|---|---|---|',
    ...p.incremental.map((i) => `| ${i.table} | ${wc(i.track)} | ${wc(i.relationship)} | ${wc(i.permission)} | ${wc(i.firstQuery)} |`),
    '',
  ];
  if (p.catalogPlan) {
    const c = p.catalogPlan;
    lines.push(
      `Catalog introspection statement (EXPLAIN ANALYZE, plain): estimated cost ${c.totalCost.toFixed(0)} (jit_above_cost ${c.jitAboveCost}), ` +
        `${c.jitMs === null ? 'not JIT-compiled' : `JIT ${c.jitMs.toFixed(0)} ms`}, execution ${c.executionMs.toFixed(0)} ms; ` +
        `with jit = off, as the engine sends it: ${c.executionJitOffMs.toFixed(0)} ms.`,
      '',
    );
  }
  lines.push(
    '<details><summary>Per role</summary>',
    '',
    '| Role | first introspection | first query after reload | second query |',
    '|---|---|---|---|',
    ...p.roleTimings.map((r) => `| ${r.role} | ${wc(r.introspection)} | ${wc(r.firstQuery)} | ${wc(r.secondQuery)} |`),
    '',
    '</details>',
    '',
  );
  if (p.errors.length > 0) lines.push('Errors:', '', ...p.errors.map((e) => `- ${e}`), '');
  return lines;
}

export function scaleReport(run: ScaleRun): string {
  const m = run.machine;
  return [
    `# svc-graphql-engine metadata scale run, ${run.mode}, ${run.startedAt}`,
    '',
    `Machine: ${m.nproc} cores (${m.cpuModel}), ${m.memGb} GB, Node ${m.node}; load average ${m.loadStart.map((x) => x.toFixed(2)).join(' ')} at the start, ` +
      `${m.loadEnd.map((x) => x.toFixed(2)).join(' ')} at the end. Timings are wall-clock from the client, with the engine process's CPU time over the same call in brackets (10 ms ticks); one engine process.`,
    '',
    ...run.passes.flatMap(passSection),
  ].join('\n');
}
