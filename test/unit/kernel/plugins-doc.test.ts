/**
 * docs/plugins.md's tutorial is the code of test/fixtures/memory-kind, verbatim: typecheck
 * compiles that code, test/integration/platform/third-party-kind.test.ts runs it, and this test
 * keeps the page from drifting away from it.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
