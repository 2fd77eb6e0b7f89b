/**
 * What `npm pack` ships: the compiled engine, its launcher (and the graphql loader it runs first), the default plugin config, the built
 * console, the licence and the README; no sources, tests or source maps. Runs against a built dist/ (built here when a
 * source changed).
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('npm package contents', function () {
  this.timeout(300_000);
  let files: string[];

  before(() => {
    execFileSync(process.execPath, [join(root, 'scripts/build.js'), '--if-needed'], { cwd: root, stdio: 'pipe' });
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    files = (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
  });

  it('holds only what runs', () => {
    // The console's built assets ship too (prepack runs `npm run build`); this test builds only the
    // engine, so they are allowed here but not required.
    const allowed = /^(package\.json|LICENSE|README\.md|bin\/(svc-graphql-engine|graphql-production)\.js|config\/plugins\.json|dist\/.+\.(js|d\.ts)|plugins\/api\/console\/dist\/.+)$/;
    expect(files.filter((f) => !allowed.test(f))).to.deep.equal([]);
    for (const must of ['bin/svc-graphql-engine.js', 'bin/graphql-production.js', 'dist/core/main.js', 'dist/core/index.js', 'dist/core/sdk/index.d.ts', 'dist/plugins/db/postgres/index.js', 'dist/config/options.js', 'config/plugins.json', 'LICENSE']) {
      expect(files, must).to.include(must);
    }
    expect(files.some((f) => f.startsWith('dist/test/') || f.startsWith('test/'))).to.equal(false);
  });

  it('names the entry points it holds', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pkg.license).to.equal('Apache-2.0');
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).to.include('Apache License');
    for (const path of [pkg.main, pkg.types, pkg.exports['.'].default, pkg.exports['.'].types, pkg.exports['./sdk'].default, pkg.exports['./sdk'].types]) {
      expect(files, path).to.include(path.replace(/^\.\//, ''));
    }
    expect(files).to.include(pkg.bin['svc-graphql-engine']);
  });
});
