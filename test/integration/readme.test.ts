/**
 * The README's walkthrough, run as written (the bash block after `<!-- walkthrough -->`) against
 * a fresh engine on a fresh database: it must create what it tracks. The engine is started here
 * (the block's first line starts it in a terminal of its own); the block gets its URL and admin
 * secret through the variables it reads, and runs in a scratch folder beside a link to bin/.
 */
import { expect } from 'chai';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestEngine } from '../helpers/engine.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import type { Engine } from '../../core/engine.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function walkthrough(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const m = /<!-- walkthrough -->\n```bash\n([\s\S]*?)```/.exec(readme);
  if (!m) throw new Error('README.md has no walkthrough block');
  return m[1]!;
}

describe('README walkthrough', function () {
  this.timeout(300_000);
  let db: TestDatabase;
  let engine: Engine;
  let work: string;

  before(async () => {
    execFileSync(process.execPath, [join(root, 'scripts/build.js'), '--if-needed'], { cwd: root, stdio: 'pipe' });
    db = await createTestDatabase('readme');
    engine = await startTestEngine({ databaseUrl: db.url, adminSecret: 'change-me' });
    work = mkdtempSync(join(tmpdir(), 'svc-readme-'));
    symlinkSync(join(root, 'bin'), join(work, 'bin'));
  });

  after(async () => {
    await engine?.close();
    await db?.drop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('runs as written on a fresh engine and answers what it says', async () => {
    // Asynchronously: the engine answering the block's requests runs in this process.
    const child = spawn('bash', ['--norc', '--noprofile', '-euo', 'pipefail', '-c', walkthrough()], {
      cwd: work,
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], SVC_GRAPHQL_ENDPOINT: engine.url },
    });
    const run = { stdout: '', stderr: '', status: null as number | null };
    child.stdout.on('data', (d: Buffer) => (run.stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (run.stderr += d.toString()));
    run.status = await new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    expect(run.status, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).to.equal(0);
    expect(run.stdout).to.include('OK\n');
    expect(run.stdout).to.match(/applied \d+_create_author/);
    expect(run.stdout, run.stdout).to.include('{"data":{"author":[{"id":1,"name":"Ann"}, {"id":2,"name":"Bo"}]}}');
    expect(existsSync(join(work, 'my-project', 'metadata', 'databases', 'default', 'tables', 'public_author.yaml'))).to.equal(true);
  });
});
