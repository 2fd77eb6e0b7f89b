/** Starts the Node floor (node-floor.ts) in its own process, with one route per query. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startServer, type ServerProcess } from './proc.js';
import { waitHealthy } from './engine-process.js';
import { positionalSql } from './sql-template.js';
import { rootField, type BenchQuery } from './queries.js';

export interface FloorProcess extends ServerProcess {
  url: string;
}

/** `templates`: per query id, the SQL template the floor runs (Q0 needs none: its answer is fixed). */
export async function startFloor(
  repoRoot: string,
  databaseUrl: string,
  poolSize: number,
  queries: readonly BenchQuery[],
  templates: ReadonlyMap<string, string>,
  workDir: string,
): Promise<FloorProcess> {
  const port = await freePort();
  const routes: Record<string, { name: string; text: string; args: string[]; field: string; fixed?: string }> = {};
  for (const q of queries) {
    if (q.vars.length === 0 && q.reference === null && !q.mutation) {
      routes[q.graphql] = { name: '', text: '', args: [], field: '', fixed: '{"data":{"__typename":"query_root"}}' };
      continue;
    }
    const template = templates.get(q.id);
    if (!template) continue;
    const { text, args } = positionalSql(template);
    routes[q.graphql] = { name: `floor_${q.id}`, text, args, field: rootField(q) };
  }
  const configFile = join(workDir, 'node-floor.json');
  writeFileSync(configFile, JSON.stringify({ port, databaseUrl, poolSize, routes }));
  const server = startServer(process.execPath, ['--import', 'tsx', join(repoRoot, 'test/bench/node-floor.ts'), configFile], join(workDir, 'node-floor.log'), {
    cwd: repoRoot,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, server, null);
  return { ...server, url };
}
