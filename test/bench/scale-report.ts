/** The Markdown report of a metadata scale run (`npm run bench:scale`), goals beside the figures. */
import type { ScalePass } from './scale-pass.js';

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
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const max = (xs: number[]) => Math.max(...xs);
const verdict = (value: number, goal: number) => (value < goal ? 'met' : '**not met**');

function passSection(p: ScalePass): string[] {
  const first = p.roleTimings.map((r) => r.firstQueryMs);
  const intro = p.roleTimings.map((r) => r.introspectionMs);
  const second = p.roleTimings.map((r) => r.secondQueryMs);
  const incr = p.incremental.flatMap((i) => [i.trackMs, i.relationshipMs, i.permissionMs]);
  const lines = [
    `## PostgreSQL ${p.profile === 'tuned' ? 'tuned settings (jit off)' : "default settings (jit on)"}`,
    '',
    `${p.tables} tables, ${p.roles} roles, metadata ${(p.metadataBytes / 2 ** 20).toFixed(1)} MiB of JSON. Tables created in ${ms(p.createTablesMs)}; engine started in ${ms(p.engineStartMs)}.`,
    '',
    '| What | Figure | Goal |',
    '|---|---|---|',
    `| replace_metadata | ${ms(p.replaceMs)} | < 5 s: ${verdict(p.replaceMs, GOALS.replaceMs)} |`,
    `| reload_metadata (3 runs) | ${p.reloadMs.map(ms).join(', ')} | – |`,
    `| first introspection query per role (builds its schema) | median ${ms(median(intro))}, max ${ms(max(intro))} | – |`,
    `| first query per role after a reload (schema + plan + run) | median ${ms(median(first))}, max ${ms(max(first))} | < 200 ms: ${verdict(max(first), GOALS.firstQueryMs)} |`,
    `| second query per role | median ${ms(median(second))}, max ${ms(max(second))} | – |`,
    `| RSS after replace / with every role warm | ${p.rssAfterReplaceMb.toFixed(0)} / ${p.rssRolesWarmMb.toFixed(0)} MB | < 300 MB: ${verdict(p.rssRolesWarmMb, GOALS.rssMb)} |`,
    `| live heap after a full GC, after replace / with every role warm | ${p.heapAfterReplaceMb.toFixed(0)} / ${p.heapRolesWarmMb.toFixed(0)} MB | – |`,
    `| incremental operation (max of track, relationship, permission) | ${incr.length ? ms(max(incr)) : '–'} | < 100 ms: ${incr.length ? verdict(max(incr), GOALS.incrementalMs) : '–'} |`,
    '',
    '| New table | pg_track_table | pg_create_object_relationship | pg_create_select_permission | role\'s first query |',
    '|---|---|---|---|---|',
    ...p.incremental.map((i) => `| ${i.table} | ${ms(i.trackMs)} | ${ms(i.relationshipMs)} | ${ms(i.permissionMs)} | ${ms(i.firstQueryMs)} |`),
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
    ...p.roleTimings.map((r) => `| ${r.role} | ${ms(r.introspectionMs)} | ${ms(r.firstQueryMs)} | ${ms(r.secondQueryMs)} |`),
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
      `${m.loadEnd.map((x) => x.toFixed(2)).join(' ')} at the end. Timings are wall-clock from the client, one engine process.`,
    '',
    ...run.passes.flatMap(passSection),
  ].join('\n');
}
