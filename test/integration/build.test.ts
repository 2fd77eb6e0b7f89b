/**
 * The compiled build: `npm run build` compiles to dist/ with tsc, and `npm start` serves from
 * dist/ (building first when the sources changed), so production never compiles TypeScript.
 * The build itself is skipped when dist/ is already newer than every source.
 */
import { expect } from 'chai';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENGINE_VERSION } from '../../core/version.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { freePort, REPO_ROOT } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';

describe('compiled build and npm start (real processes)', function () {
  this.timeout(240_000);
  let db: TestDatabase;
  let child: ChildProcess | undefined;
  let output = '';

  before(async () => {
    execFileSync(process.execPath, ['scripts/build.js', '--if-needed'], { cwd: REPO_ROOT, stdio: 'pipe' });
    db = await createTestDatabase('build');
  });
  after(async () => {
    // npm runs the engine as a grandchild: killing npm alone left the engine serving after the
    // suite (and holding the test database). The child leads its own process group: end it whole.
    if (child?.pid !== undefined && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      await exited;
    }
    await db?.drop();
  });

  it('compiles core, plugins and the SDK with its declarations to dist/', () => {
    for (const file of ['core/main.js', 'core/sdk/index.js', 'core/sdk/index.d.ts', 'plugins/db/postgres/index.js', 'config/options.js']) {
      expect(existsSync(join(REPO_ROOT, 'dist', file)), file).to.equal(true);
    }
  });

  it('runs the compiled executable', () => {
    const out = execFileSync(process.execPath, ['bin/svc-graphql-engine.js', 'version'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(out.trim()).to.equal(`svc-graphql-engine: ${ENGINE_VERSION}`);
    // The executable loads dist/ only: no TypeScript loader is involved.
    expect(readFileSync(join(REPO_ROOT, 'bin', 'svc-graphql-engine.js'), 'utf8')).to.not.match(/tsx/);
  });

  it('npm start serves from dist/ with the built-in plugins', async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SVC_GRAPHQL_DATABASE_URL: db.url,
      SVC_GRAPHQL_SERVER_HOST: '127.0.0.1',
      SVC_GRAPHQL_SERVER_PORT: String(port),
      SVC_GRAPHQL_ADMIN_SECRET: 'secret',
      SVC_GRAPHQL_ENABLED_LOG_TYPES: 'startup',
    };
    delete env['NODE_OPTIONS'];
    child = spawn('npm', ['start', '--silent'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    await waitFor(() => (/server listening on port/.test(output) ? true : undefined), { timeoutMs: 120_000, what: () => `engine to listen; output:\n${output}` });
    expect(output).to.match(/db\/postgres/);
    const res = await fetch(`http://127.0.0.1:${port}/v1/metadata`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-admin-secret': 'secret' },
      body: JSON.stringify({ type: 'export_metadata', args: {} }),
    });
    expect(res.status).to.equal(200);
    expect(((await res.json()) as { sources: Array<{ name: string }> }).sources.map((s) => s.name)).to.deep.equal(['default']);
  });
});
