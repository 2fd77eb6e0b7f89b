/**
 * Where the engine's CPU goes, from a V8 `.cpuprofile` (`npm run bench -- --profile-engine`):
 * top self-time functions, self time per package, and inclusive time of the engine's own
 * functions. Only samples between the first and the last request executed count (start-up and
 * shutdown are left out), and idle time is left out of the percentages.
 * Usage: tsx test/bench/profile-summary.ts <file.cpuprofile> [top=25] [window=core/graphql/execute/executor]
 * (`window`: the samples between the first and the last whose stack holds a file matching it;
 * `core/metadata/service` for metadata operations.)
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg, windowArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top]');
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const stack = (id: number): ProfileNode[] => {
  const out: ProfileNode[] = [];
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) out.push(byId.get(cur)!);
  return out;
};
const label = (n: ProfileNode) =>
  `${n.callFrame.functionName || '(anonymous)'}  ${n.callFrame.url ? `${n.callFrame.url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*?\/(?:dist\/)?(?=(?:core|plugins|bin)\/)/, '')}:${n.callFrame.lineNumber + 1}` : ''}`;

function where(url: string): string {
  if (!url) return '(native/V8: syscalls, GC, JSON)';
  if (url.startsWith('node:')) return 'node core';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  const repo = /\/(core|plugins|test|bin)\/(.*)$/.exec(url);
  return repo ? `${repo[1]}/${repo[2]!.split('/').slice(0, repo[1] === 'plugins' ? 2 : 1).join('/')}` : url;
}

// The load window: from the first to the last sample inside the executor (or the given file).
const windowFile = windowArg ?? 'core/graphql/execute/executor';
const inExecutor = profile.samples.map((id) => stack(id).some((n) => n.callFrame.url.includes(windowFile)));
const first = inExecutor.indexOf(true);
const last = inExecutor.lastIndexOf(true);

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
const byPackage = new Map<string, number>();
let busy = 0;
let idle = 0;
const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
for (let i = Math.max(first, 0); i <= last; i++) {
  const dt = profile.timeDeltas[i] ?? 0;
  const frames = stack(profile.samples[i]!);
  const leaf = frames[0]!;
  if (leaf.callFrame.functionName === '(idle)') {
    idle += dt;
    continue;
  }
  busy += dt;
  add(self, label(leaf), dt);
  add(byPackage, where(leaf.callFrame.url), dt);
  const seen = new Set<string>();
  for (const f of frames) {
    if (f.callFrame.url.includes('node_modules') || !/\/(core|plugins)\//.test(f.callFrame.url)) continue;
    const k = label(f);
    if (!seen.has(k)) add(inclusive, k, dt);
    seen.add(k);
  }
}

const pct = (us: number) => ((100 * us) / busy).toFixed(1).padStart(5) + '%';
const print = (title: string, m: Map<string, number>, n: number) => {
  console.log(`\n${title}:`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${pct(us)}  ${k}`);
};
console.log(`load window ${((busy + idle) / 1e6).toFixed(2)} s: busy ${(busy / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s (percentages are of busy time)`);
print('self time by function', self, top);
print('self time by package / engine folder', byPackage, 20);
print("inclusive time of the engine's functions", inclusive, top);
