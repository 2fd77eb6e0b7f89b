/**
 * docs/plugins.md's tutorial is the code of test/fixtures/memory-kind, verbatim (this test keeps
 * the page from drifting away from it), and the page's own code works: it is written out of the
 * page, compiled with tsc against the SDK, loaded by `module` path from a plugin config and run
 * (test/integration/platform/third-party-kind.test.ts runs the fixture in depth).
 */
import { expect } from 'chai';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { loadPlugins } from '../../../core/kernel/loader.js';
import { bootTestEngine, type TestEngine } from '../../helpers/inject.js';
import { memoryDataFile } from '../../helpers/memory-kind.js';
import { REPO_ROOT } from '../../helpers/process.js';

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'memory-kind');

function tutorialBlocks(): Map<string, string> {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'plugins.md'), 'utf8');
  const blocks = new Map<string, string>();
  for (const m of doc.matchAll(/<!-- tutorial-file: ([\w.-]+) -->\n```ts\n([\s\S]*?)```\n/g)) blocks.set(m[1]!, m[2]!);
  return blocks;
}

describe('docs/plugins.md tutorial', () => {
  it('shows every file of the memory-kind fixture, exactly', () => {
    const blocks = tutorialBlocks();
    const files = readdirSync(FIXTURE).filter((f) => f.endsWith('.ts')).sort();
    expect([...blocks.keys()].sort()).to.deep.equal(files);
    for (const file of files) expect(blocks.get(file), file).to.equal(readFileSync(join(FIXTURE, file), 'utf8'));
  });

  it('uses nothing of the engine but the SDK', () => {
    for (const [file, code] of tutorialBlocks()) {
      const engineImports = [...code.matchAll(/from '([^']+)'/g)].map((m) => m[1]!).filter((s) => !s.startsWith('./') && !s.startsWith('node:'));
      expect(engineImports, file).to.satisfy((list: string[]) => list.every((s) => s === 'svc-graphql-engine/sdk'));
    }
  });
});

describe('docs/plugins.md tutorial, taken from the page', function () {
  this.timeout(120_000);
  // Inside the package (ignored by git), so `svc-graphql-engine/sdk` resolves as for a plugin of ours.
  const dir = join(REPO_ROOT, '.tmp', `core3-doc-tutorial-${process.pid}`);
  let engine: TestEngine | undefined;

  before(() => {
    mkdirSync(dir, { recursive: true });
    for (const [file, code] of tutorialBlocks()) writeFileSync(join(dir, file), code);
  });
  after(async () => {
    await engine?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('compiles with tsc, strict, using nothing but the SDK', () => {
    const config = ts.getParsedCommandLineOfConfigFile(join(REPO_ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
    const files = [...tutorialBlocks().keys()].map((f) => join(dir, f));
    const program = ts.createProgram(files, { ...config.options, noEmit: true });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).to.deep.equal([]);
  });

  it('loads by module path and serves a query', async () => {
    const pluginConfig = join(dir, 'plugins.json');
    writeFileSync(pluginConfig, JSON.stringify({
      plugins: [
        { id: 'db/memory', module: './index.ts' },
        'auth/admin-secret', 'metadata/sources', 'metadata/tables', 'metadata/relationships', 'api/metadata', 'api/graphql',
      ],
    }));
    const loaded = await loadPlugins(pluginConfig, ['metadata', 'graphql']);
    engine = await bootTestEngine({ plugins: loaded.plugins, pluginOptions: loaded.options, config: { adminSecret: 's' } });
    const headers = { 'x-svc-admin-secret': 's' };
    const ops = [
      { type: 'mem_add_source', args: { name: 'library', configuration: { file: memoryDataFile() } } },
      { type: 'mem_track_table', args: { source: 'library', table: 'author' } },
      { type: 'mem_track_table', args: { source: 'library', table: 'book' } },
      { type: 'mem_create_array_relationship', args: { source: 'library', table: 'author', name: 'books', using: { foreign_key_constraint_on: { table: 'book', column: 'author_id' } } } },
    ];
    for (const body of ops) expect((await engine.inject({ url: '/v1/metadata', headers, body })).body, body.type).to.deep.equal({ message: 'success' });
    const res = await engine.inject({ url: '/v1/graphql', headers, body: { query: '{ author(where: {id: {_gt: 1}}) { name books { title pages } } }' } });
    expect(res.body).to.deep.equal({ data: { author: [{ name: 'Bo', books: [{ title: 'Moss', pages: 80 }] }] } });
  });
});
