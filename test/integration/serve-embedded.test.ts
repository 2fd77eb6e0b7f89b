import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitForHealth } from '../helpers/engine-process.js';
import { freePort, SOURCE_ENTRY } from '../helpers/process.js';

describe('serve on the embedded database (smoke, real process)', function () {
  this.timeout(90_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-serve-'));
  let child: ChildProcess;
  let url: string;
  let output = '';

  before(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = { ...process.env, SVC_GRAPHQL_SERVER_PORT: String(port), SVC_GRAPHQL_DATA_DIR: dataDir };
    delete env['SVC_GRAPHQL_DATABASE_URL'];
    delete env['SVC_GRAPHQL_METADATA_DATABASE_URL'];
    child = spawn(process.execPath, [...SOURCE_ENTRY, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    await waitForHealth(url, child, 60_000);
  });
  after(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('says OK on /healthz', async () => {
    expect(await (await fetch(`${url}/healthz`)).text()).to.equal('OK');
  });

  it('exports metadata version 3 with the default source', async () => {
    const res = await fetch(`${url}/v1/metadata`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'export_metadata', version: 2, args: {} }),
    });
    const body = (await res.json()) as { resource_version: number; metadata: { version: number; sources: { name: string }[] } };
    expect(body.resource_version).to.be.a('number');
    expect(body.metadata.version).to.equal(3);
    expect(body.metadata.sources.map((s) => s.name)).to.deep.equal(['default']);
  });

  it('logs that it uses the embedded database and how to use PostgreSQL instead', () => {
    expect(output).to.contain('embedded PostgreSQL').and.contain('SVC_GRAPHQL_DATABASE_URL');
  });

  it('holds a lock on its data directory while running', () => {
    expect(existsSync(join(dataDir, 'svc-graphql-engine.lock'))).to.equal(true);
  });

  it('shuts down cleanly on SIGTERM and releases the lock', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).to.equal(0);
    expect(existsSync(join(dataDir, 'svc-graphql-engine.lock'))).to.equal(false);
  });
});
