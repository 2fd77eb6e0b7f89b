import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTestDatabase } from './test/helpers/database.js';
import { ADMIN_HEADERS, postJson, startEngineProcess } from './test/bench/engine-process.js';
import { processCpuMicros } from './test/bench/proc.js';
import { createScaleTables, roleName, roleQuery, scaleTables } from './test/bench/scale-schema.js';
const db = await createTestDatabase('probe');
const engine = await startEngineProcess(resolve('.'), db.url, mkdtempSync(join(tmpdir(), 'probe-')));
try {
  await createScaleTables(db.url, 1000);
  const exported = (await postJson(engine.url + '/v1/metadata', { type: 'export_metadata', args: {} })).body;
  exported.sources.find((s: { name: string }) => s.name === 'default').tables = scaleTables(1000, 4);
  await postJson(engine.url + '/v1/metadata', { type: 'replace_metadata', args: exported });
  await new Promise((r) => setTimeout(r, 2000));
  for (const r of [1, 2, 3, 4]) {
    const cpu = processCpuMicros(engine.pid); const t = performance.now();
    const res = await postJson(engine.url + '/v1/graphql', { query: roleQuery(r, 1000) }, { ...ADMIN_HEADERS, 'x-svc-role': roleName(r), 'x-svc-user-id': '1' });
    console.log(roleName(r), res.status, (performance.now() - t).toFixed(0), 'ms, CPU', ((processCpuMicros(engine.pid) - cpu) / 1000).toFixed(0));
  }
} finally { await engine.stop(); await db.drop(); }
