import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '../../../core/engine.js';
import type { EchoCounter } from '../../../plugins/example/echo-operation/index.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { metadata, startTestEngine } from '../../helpers/engine.js';

describe('example plugin (docs/plugins.md)', function () {
  let db: TestDatabase;
  let engine: Engine;

  before(async () => {
    db = await createTestDatabase('example');
    const dir = mkdtempSync(join(tmpdir(), 'svc-example-'));
    const pluginConfig = join(dir, 'plugins.json');
    writeFileSync(
      pluginConfig,
      JSON.stringify({
        plugins: [
          'db/postgres',
          'auth/admin-secret',
          'api/metadata',
          { id: 'example/echo-operation', module: join(process.cwd(), 'plugins/example/echo-operation/index.ts'), options: { prefix: 'heard' } },
        ],
      }),
    );
    engine = await startTestEngine({ databaseUrl: db.url, pluginConfig });
  });
  after(async () => {
    await engine?.close();
    await db?.drop();
  });

  it('is loaded from the plugin config with its options and answers its operation', async () => {
    expect(engine.kernel.pluginIds).to.include('example/echo-operation');
    const res = await metadata(engine, { type: 'example_echo', args: { hello: 'world' } });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ heard: { hello: 'world' } });
    expect(engine.kernel.container.resolve<EchoCounter>('example.echoCounter').calls).to.equal(1);
  });

  it('runs inside a bulk like any built-in operation', async () => {
    const res = await metadata(engine, { type: 'bulk', args: [{ type: 'example_echo', args: 1 }, { type: 'example_echo', args: 2 }] });
    expect(res.body).to.deep.equal([{ heard: 1 }, { heard: 2 }]);
  });

  it('leaves operations of plugins that are not loaded unknown', async () => {
    const res = await metadata(engine, { type: 'export_metadata', args: {} });
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal('parse-failed');
  });
});
