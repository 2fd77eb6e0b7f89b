/**
 * The layering of core/ (docs/architecture.md, "Layers"): every module belongs to one unit of one
 * layer, and imports only from its own unit, other units of lower layers, or (for units of the
 * same layer) without forming a cycle. Type-only imports count too: a type from a higher layer
 * ties a lower module to it just as well. The few type-only exceptions that remain are listed
 * below with their reason; the test fails when one disappears, so the list only shrinks.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { REPO_ROOT } from '../../helpers/process.js';

const CORE = join(REPO_ROOT, 'core');

/** Bottom up. A module's unit is the first pattern (a path under core/, or a folder prefix) it matches. */
export const LAYERS: ReadonlyArray<{ layer: string; units: ReadonlyArray<[unit: string, patterns: readonly string[]]> }> = [
  {
    layer: '1 foundation',
    units: [
      ['errors', ['errors.ts']],
      ['json-type', ['json-type.ts', 'lossless-json.ts']],
      ['config', ['config/']],
      ['logger', ['logger.ts']],
      ['paths', ['paths.ts', 'version.ts']],
      ['tracing', ['tracing/']],
      ['metrics', ['metrics/']],
      // Plain helpers that happen to sit with the HTTP layer: the outgoing client and nesting bounds.
      ['http-primitives', ['http/outgoing.ts', 'http/nesting.ts']],
    ],
  },
  {
    layer: '2 contracts and documents',
    units: [
      ['ir', ['graphql/ir.ts', 'graphql/ir-mutation.ts', 'graphql/ir-reads.ts', 'graphql/aggregate-predicates.ts']],
      ['metadata-document', ['metadata/types.ts']],
      ['db', ['db/']],
      ['auth', ['auth/']],
      ['features', ['features/']],
    ],
  },
  {
    layer: '3 metadata helpers',
    units: [
      ['webhooks', ['webhooks/']],
      ['metadata-helpers', ['metadata/args.ts', 'metadata/bool-exp-', 'metadata/catalog-diff.ts', 'metadata/cow-draft.ts', 'metadata/defaults.ts', 'metadata/dependencies.ts',
        'metadata/document.ts', 'metadata/document-json.ts', 'metadata/event-trigger-definition.ts', 'metadata/mutex.ts', 'metadata/permission-parse.ts', 'metadata/renames.ts',
        'metadata/schema-change.ts', 'metadata/schema-dependents.ts', 'metadata/store.ts']],
    ],
  },
  {
    layer: '4 schema cache',
    units: [['schema-cache', ['schema-cache/']]],
  },
  {
    layer: '5 graphql',
    units: [
      ['graphql', ['graphql/']],
      ['subscriptions', ['subscriptions/']],
    ],
  },
  {
    layer: '6 operation contract and HTTP plumbing',
    units: [
      ['metadata-operation', ['metadata/operation.ts', 'metadata/consistency.ts', 'metadata/drop-inconsistent.ts', 'metadata/root-field-reservations.ts']],
      ['http-plumbing', ['http/types.ts', 'http/raw-routes.ts', 'http/gzip.ts', 'http/cors.ts', 'http/error-response.ts', 'http/body.ts']],
    ],
  },
  {
    layer: '7 hook points',
    units: [['hooks', ['hooks.ts', 'events.ts', 'plugin.ts']]],
  },
  {
    layer: '8 service and routes',
    units: [
      ['metadata-service', ['metadata/service.ts', 'metadata/register.ts']],
      ['http-app', ['http/']],
    ],
  },
  {
    layer: '9 kernel and process',
    units: [
      ['kernel', ['kernel/']],
      ['engine', ['engine.ts', 'serve.ts', 'cli.ts', 'main.ts', 'index.ts']],
      ['workers', ['workers/']],
      ['sdk', ['sdk/']],
      ['project', ['project/']],
    ],
  },
];

/** Type-only imports that still reach up, `from -> to` (paths under core/), with why they remain. */
const KNOWN_TYPE_ONLY: Readonly<Record<string, string>> = {
  // A snapshot builds each role's GraphQL schema on first use and keeps it: the cache holds values
  // of a type the GraphQL layer defines (RoleSchema), while that layer reads the cache.
  'schema-cache/cache.ts -> graphql/schema-draft.ts': 'a snapshot holds its role schemas',
  'schema-cache/builder.ts -> graphql/schema-draft.ts': 'a snapshot holds its role schemas',
};

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Static imports and re-exports (with whether they are type-only) and dynamic imports. */
export function importsOf(text: string): Array<{ specifier: string; typeOnly: boolean }> {
  const out: Array<{ specifier: string; typeOnly: boolean }> = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/gm)) {
    const names = m[3]!;
    // `import { type A, type B }` is as type-only as `import type { A, B }`.
    const allTypeNames = /^\{[^}]*\}$/.test(names.trim()) && names.replace(/[{}\s]/g, '').split(',').filter(Boolean).every((n) => n.startsWith('type'));
    out.push({ specifier: m[4]!, typeOnly: m[2] !== undefined || allTypeNames });
  }
  for (const m of text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm)) out.push({ specifier: m[1]!, typeOnly: false });
  for (const m of text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push({ specifier: m[1]!, typeOnly: false });
  return out;
}

function coreEdges(): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(CORE)) {
    for (const { specifier, typeOnly } of importsOf(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
      if (!target.startsWith(CORE + '/')) continue;
      edges.push({ from: relative(CORE, file), to: relative(CORE, target), typeOnly });
    }
  }
  return edges;
}

export function unitOf(path: string): { unit: string; layer: number } {
  for (const [i, l] of LAYERS.entries()) {
    for (const [unit, patterns] of l.units) {
      if (patterns.some((p) => (p.endsWith('/') || p.endsWith('-') ? path.startsWith(p) : path === p))) return { unit, layer: i + 1 };
    }
  }
  throw new Error(`core/${path} belongs to no layer: add it to LAYERS (test/unit/architecture/layers.test.ts) and docs/architecture.md`);
}

/** Strongly connected components of the unit graph with more than one unit (Tarjan). */
export function unitCycles(edges: ReadonlyArray<[string, string]>): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const [a, b] of edges) {
    if (!graph.has(a)) graph.set(a, new Set());
    if (!graph.has(b)) graph.set(b, new Set());
    graph.get(a)!.add(b);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

describe('core/ layering (docs/architecture.md)', () => {
  const edges = coreEdges();

  it('puts every module of core/ in a layer', () => {
    for (const file of sourceFiles(CORE)) unitOf(relative(CORE, file));
  });

  it('no module imports from a higher layer (type-only imports included)', () => {
    const offences: string[] = [];
    const known = new Set<string>();
    for (const e of edges) {
      const from = unitOf(e.from);
      const to = unitOf(e.to);
      if (to.layer <= from.layer) continue;
      const key = `${e.from} -> ${e.to}`;
      if (e.typeOnly && KNOWN_TYPE_ONLY[key]) known.add(key);
      else offences.push(`${key} (${from.unit}@${from.layer} imports ${to.unit}@${to.layer}${e.typeOnly ? ', type-only' : ''})`);
    }
    expect(offences).to.deep.equal([]);
    expect(Object.keys(KNOWN_TYPE_ONLY).filter((k) => !known.has(k)), 'listed exceptions that no longer exist').to.deep.equal([]);
  });

  it('has no import cycle between units', () => {
    const unitEdges = edges
      .filter((e) => !(e.typeOnly && KNOWN_TYPE_ONLY[`${e.from} -> ${e.to}`]))
      .map((e): [string, string] => [unitOf(e.from).unit, unitOf(e.to).unit])
      .filter(([a, b]) => a !== b);
    expect(unitCycles(unitEdges)).to.deep.equal([]);
  });

  it('the checks catch what they are for', () => {
    expect(importsOf("import type { A } from './a.js';\nimport { type B, type C } from './b.js';\nimport { d } from './d.js';")).to.deep.equal([
      { specifier: './a.js', typeOnly: true },
      { specifier: './b.js', typeOnly: true },
      { specifier: './d.js', typeOnly: false },
    ]);
    expect(importsOf("export { x } from './x.js';\nconst m = await import('./lazy.js');")).to.deep.equal([
      { specifier: './x.js', typeOnly: false },
      { specifier: './lazy.js', typeOnly: false },
    ]);
    expect(unitCycles([['a', 'b'], ['b', 'c'], ['c', 'a'], ['c', 'd']])).to.deep.equal([['a', 'b', 'c']]);
    expect(unitOf('schema-cache/builder.ts').layer).to.be.greaterThan(unitOf('metadata/types.ts').layer);
  });
});
