/**
 * `npx tsx test/bench/heap-breakdown.ts [--tables 300] [--roles 4] [--top 40] [--no-snapshot]`:
 * where the live heap of an engine with warm role schemas goes. An engine process (the compiled
 * build, as production runs it: tsx would add a property store to every closure) over the scale
 * schema (test/bench/scale-schema.ts) gets the whole metadata, every role runs its query (building
 * its schema; the live heap after each, through the inspector), then a heap snapshot is taken and its nodes summed by kind: objects by constructor,
 * plain objects by their property names (a graphql-js field is a plain object, so the constructor
 * alone would lump it with everything else), arrays, strings, closures, code. Self sizes only (no
 * dominator tree): it says what the heap is made of, not who keeps it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { getIntrospectionQuery } from 'graphql';
import { createTestDatabase } from '../helpers/database.js';
import { ADMIN_HEADERS, postJson, startEngineProcess } from './engine-process.js';
import { inspectorUrl, liveHeap, writeHeapSnapshotOf } from './live-heap.js';
import { freePort } from './proc.js';
import { createScaleTables, roleName, roleQuery, scaleTables } from './scale-schema.js';

const { values } = parseArgs({
  options: {
    tables: { type: 'string', default: '300' },
    roles: { type: 'string', default: '4' },
    top: { type: 'string', default: '40' },
    'no-snapshot': { type: 'boolean', default: false },
    /** Each role also asks the standard introspection query (consoles do; the answers are kept). */
    introspect: { type: 'boolean', default: false },
    /** Also snapshot once role N is warm and print what the later roles added, kind by kind. */
    'diff-after': { type: 'string' },
  },
});
const tables = Number(values.tables);
const roles = Number(values.roles);
const top = Number(values.top);

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] }; node_count: number };
  nodes: number[];
  edges: number[];
  strings: string[];
}

interface Row {
  kind: string;
  count: number;
  bytes: number;
}

function add(totals: Map<string, { count: number; bytes: number }>, kind: string, bytes: number): void {
  const t = totals.get(kind) ?? { count: 0, bytes: 0 };
  t.count++;
  t.bytes += bytes;
  totals.set(kind, t);
}

const sorted = (totals: Map<string, { count: number; bytes: number }>): Row[] =>
  [...totals].map(([kind, t]) => ({ kind, ...t })).sort((a, b) => b.bytes - a.bytes);

/**
 * Node kinds by self size; strings alone by their first characters; arrays (property and element
 * stores, closures' contexts) by the kind of the first node holding them, which says whose they are.
 */
function summarise(file: string): { kinds: Row[]; strings: Row[]; arrays: Row[] } {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const { meta } = snap.snapshot;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const [typeAt, nameAt, sizeAt, edgeCountAt] = ['type', 'name', 'self_size', 'edge_count'].map((f) => meta.node_fields.indexOf(f));
  const [edgeTypeAt, edgeNameAt, toNodeAt] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f));
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const property = edgeTypes.indexOf('property');
  const totals = new Map<string, { count: number; bytes: number }>();
  const strings = new Map<string, { count: number; bytes: number }>();
  const kindOf: string[] = [];
  let edge = 0;
  for (let n = 0; n < snap.nodes.length; n += nf) {
    const type = nodeTypes[snap.nodes[n + typeAt!]!]!;
    const name = snap.strings[snap.nodes[n + nameAt!]!]!;
    const edges = snap.nodes[n + edgeCountAt!]!;
    let kind: string;
    if (type === 'object' && name === 'Object') {
      const props: string[] = [];
      for (let e = 0; e < edges && props.length < 12; e++) {
        const at = (edge + e) * ef;
        if (snap.edges[at + edgeTypeAt!] === property) props.push(snap.strings[snap.edges[at + edgeNameAt!]!]!);
      }
      kind = `{${props.sort().join(',')}}`;
    } else if (type === 'object') kind = name;
    else if (type === 'string' || type === 'concatenated string' || type === 'sliced string') {
      kind = '(string)';
      add(strings, `${type} ${JSON.stringify(name.slice(0, 48))}`, snap.nodes[n + sizeAt!]!);
    }
    else kind = `(${type}) ${type === 'hidden' || type === 'array' || type === 'code' ? name.slice(0, 40) : ''}`;
    edge += edges;
    kindOf.push(kind);
    add(totals, kind, snap.nodes[n + sizeAt!]!);
  }
  const arrays = new Map<string, { count: number; bytes: number }>();
  const seen = new Uint8Array(kindOf.length);
  const named = new Set(['context', 'property', 'internal', 'shortcut']);
  edge = 0;
  for (let n = 0; n < snap.nodes.length; n += nf) {
    const edges = snap.nodes[n + edgeCountAt!]!;
    for (let e = 0; e < edges; e++) {
      const at = (edge + e) * ef;
      const to = snap.edges[at + toNodeAt!]! / nf;
      const type = nodeTypes[snap.nodes[to * nf + typeAt!]!];
      if (seen[to] || (type !== 'array' && kindOf[to] !== 'system / Context')) continue;
      seen[to] = 1;
      const edgeType = edgeTypes[snap.edges[at + edgeTypeAt!]!]!;
      const via = named.has(edgeType) ? snap.strings[snap.edges[at + edgeNameAt!]!]! : `[${edgeType}]`;
      add(arrays, `${kindOf[to]} ← ${kindOf[n / nf]!.slice(0, 90)} .${via}`, snap.nodes[to * nf + sizeAt!]!);
    }
    edge += edges;
  }
  return { kinds: sorted(totals), strings: sorted(strings), arrays: sorted(arrays) };
}

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const workDir = mkdtempSync(join(tmpdir(), 'svc-heap-breakdown-'));
const db = await createTestDatabase('heap_breakdown');
const engine = await startEngineProcess(repoRoot, db.url, workDir, [`--inspect=127.0.0.1:${await freePort()}`]);
try {
  const inspector = await inspectorUrl(engine.logFile);
  await createScaleTables(db.url, tables);
  const exported = (await postJson(engine.url + '/v1/metadata', { type: 'export_metadata', args: {} })).body;
  exported.sources.find((s: { name: string }) => s.name === 'default').tables = scaleTables(tables, roles);
  const replaced = await postJson(engine.url + '/v1/metadata', { type: 'replace_metadata', args: exported });
  if (replaced.status !== 200) throw new Error(JSON.stringify(replaced.body).slice(0, 400));
  let before = (await liveHeap(inspector)).heapUsedMb;
  const diffAfter = values['diff-after'] === undefined ? undefined : Number(values['diff-after']);
  let earlier: ReturnType<typeof summarise> | undefined;
  console.log(`metadata replaced, no role warm: live heap ${before.toFixed(1)} MB`);
  for (let r = 1; r <= roles; r++) {
    const headers = { ...ADMIN_HEADERS, 'x-svc-role': roleName(r), 'x-svc-user-id': '1' };
    for (const query of values.introspect ? [roleQuery(r, tables), getIntrospectionQuery()] : [roleQuery(r, tables)]) {
      const res = await postJson(engine.url + '/v1/graphql', { query }, headers);
      if (res.status !== 200 || res.body.errors) throw new Error(JSON.stringify(res.body).slice(0, 400));
    }
    const now = (await liveHeap(inspector)).heapUsedMb;
    console.log(`${roleName(r)} warm: +${(now - before).toFixed(1)} MB`);
    before = now;
    if (r === diffAfter) {
      await writeHeapSnapshotOf(inspector, join(workDir, 'before.heapsnapshot'));
      earlier = summarise(join(workDir, 'before.heapsnapshot'));
      rmSync(join(workDir, 'before.heapsnapshot'));
    }
  }
  const warm = await liveHeap(inspector);
  console.log(
    `${tables} tables, ${roles} roles warm: live heap ${warm.heapUsedMb.toFixed(1)} MB of ${warm.heapTotalMb.toFixed(1)} MB committed, ` +
      `external ${warm.externalMb.toFixed(1)} MB, rss ${warm.rssMb.toFixed(1)} MB`,
  );
  if (!values['no-snapshot']) {
    const file = join(workDir, 'engine.heapsnapshot');
    await writeHeapSnapshotOf(inspector, file);
    const { kinds, strings, arrays } = summarise(file);
    const total = kinds.reduce((s, r) => s + r.bytes, 0);
    console.log(`snapshot: ${(total / 2 ** 20).toFixed(1)} MB in ${kinds.reduce((s, r) => s + r.count, 0)} nodes`);
    const print = (rows: Row[]) => {
      for (const r of rows.slice(0, top)) console.log(`${(r.bytes / 2 ** 20).toFixed(2).padStart(8)} MB ${String(r.count).padStart(9)}  ${r.kind.slice(0, 150)}`);
    };
    print(kinds);
    console.log('strings by their first characters:');
    print(strings);
    console.log('arrays and contexts by their holder:');
    print(arrays);
    if (earlier) {
      const minus = (now: Row[], then: Row[]): Row[] => {
        const old = new Map(then.map((r) => [r.kind, r]));
        return now
          .map((r) => ({ kind: r.kind, count: r.count - (old.get(r.kind)?.count ?? 0), bytes: r.bytes - (old.get(r.kind)?.bytes ?? 0) }))
          .sort((a, b) => b.bytes - a.bytes);
      };
      console.log(`added by roles ${diffAfter! + 1}-${roles}, by kind:`);
      print(minus(kinds, earlier.kinds));
      console.log(`added by roles ${diffAfter! + 1}-${roles}, arrays and contexts by their holder:`);
      print(minus(arrays, earlier.arrays));
    }
  }
} finally {
  await engine.stop();
  await db.drop();
  rmSync(workDir, { recursive: true, force: true });
}
