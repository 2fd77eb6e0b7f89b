/**
 * The engine under test, in its own process (`node bin/svc-graphql-engine.js serve`, the compiled
 * build as production runs it, built first when the sources changed; its CPU time is its own), configured through the metadata API: the three tables tracked, their
 * relationships, a 10-connection pool, and a `user` role whose rows are filtered on a session
 * variable (written into the table entries with replace_metadata).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { connect } from 'node:net';
import { freePort, logTail, sleep, startServer, type ServerProcess } from './proc.js';

export const ADMIN_SECRET = 'svc-bench-secret';
export const ADMIN_HEADERS = { 'content-type': 'application/json', 'x-svc-admin-secret': ADMIN_SECRET };

export interface EngineProcess extends ServerProcess {
  url: string;
}

/** `nodeOptions` go before the script (e.g. `--cpu-prof` to profile the engine). */
export async function startEngineProcess(
  repoRoot: string,
  databaseUrl: string,
  workDir: string,
  nodeOptions: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<EngineProcess> {
  execFileSync(process.execPath, [join(repoRoot, 'scripts/build.js'), '--if-needed'], { cwd: repoRoot, stdio: 'inherit' });
  const port = await freePort();
  const args = [...nodeOptions, join(repoRoot, 'bin/svc-graphql-engine.js'), 'serve'];
  const server = startServer(process.execPath, args, join(workDir, 'engine.log'), { cwd: repoRoot, env: engineEnv(databaseUrl, port, env) });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, server);
  return { ...server, url };
}

/** The environment a bench engine runs with: on `databaseUrl`, serving 127.0.0.1:`port`, with `extra` on top. */
export function engineEnv(databaseUrl: string, port: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    SVC_GRAPHQL_DATABASE_URL: databaseUrl,
    SVC_GRAPHQL_SERVER_HOST: '127.0.0.1',
    SVC_GRAPHQL_SERVER_PORT: String(port),
    SVC_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET,
    SVC_GRAPHQL_ENABLE_TELEMETRY: 'false',
    // Per-request HTTP logs off, as PostGraphile runs with --disable-query-log.
    SVC_GRAPHQL_ENABLED_LOG_TYPES: 'startup',
    SVC_GRAPHQL_SCHEMA_SYNC_POLL_INTERVAL: '0',
    ...extra,
  };
}

/** Waits until `GET path` answers below 500, or, without a path, until the port accepts connections. */
export async function waitHealthy(url: string, server: ServerProcess, path: string | null = '/healthz', timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) throw new Error(`${url} exited early:\n${logTail(server.logFile)}`);
    if (path === null ? await accepts(url) : await answers(url + path)) return;
    await sleep(200);
  }
  throw new Error(`${url} did not become ready in ${timeoutMs} ms:\n${logTail(server.logFile)}`);
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2000) })).status < 500;
  } catch {
    return false;
  }
}

function accepts(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = ADMIN_HEADERS): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keep the text */
  }
  return { status: res.status, body: parsed };
}

async function metadata(url: string, body: unknown): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await postJson(url + '/v1/metadata', body);
  if (res.status !== 200) throw new Error(`metadata ${JSON.stringify(body).slice(0, 80)}… failed: ${JSON.stringify(res.body)}`);
  return res.body;
}

const track = (table: string) => ({ type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: table } } });
const objectRel = (table: string, name: string, column: string) => ({
  type: 'pg_create_object_relationship',
  args: { source: 'default', table, name, using: { foreign_key_constraint_on: column } },
});
const arrayRel = (table: string, name: string, remote: string, column: string) => ({
  type: 'pg_create_array_relationship',
  args: { source: 'default', table, name, using: { foreign_key_constraint_on: { table: remote, column } } },
});

const USER_PERMISSIONS: Record<string, unknown[]> = {
  author: [{ role: 'user', permission: { columns: ['id', 'name', 'email'], filter: { id: { _eq: 'X-Svc-User-Id' } } } }],
  article: [
    { role: 'user', permission: { columns: ['id', 'author_id', 'title', 'rating', 'published_at'], filter: { author_id: { _eq: 'X-Svc-User-Id' } } } },
  ],
};

/** Q8: a user may rename only themselves, and the row must keep an example.com email. */
const USER_UPDATE_PERMISSIONS: Record<string, unknown[]> = {
  author: [
    { role: 'user', permission: { columns: ['name'], filter: { id: { _eq: 'X-Svc-User-Id' } }, check: { email: { _like: '%@example.com' } } } },
  ],
};

export async function configureEngine(url: string, poolSize: number): Promise<void> {
  const exported = await metadata(url, { type: 'export_metadata', args: {} });
  // A re-run on the same database starts from a clean source.
  exported.sources = (exported.sources ?? []).map((s: { name: string }) => (s.name === 'default' ? { ...s, tables: [] } : s));
  await metadata(url, { type: 'replace_metadata', args: exported });
  await metadata(url, {
    type: 'bulk',
    args: [
      track('author'),
      track('article'),
      track('comment'),
      objectRel('article', 'author', 'author_id'),
      arrayRel('author', 'articles', 'article', 'author_id'),
      arrayRel('article', 'comments', 'comment', 'article_id'),
    ],
  });
  const md = await metadata(url, { type: 'export_metadata', args: {} });
  const source = md.sources.find((s: { name: string }) => s.name === 'default');
  const info = source.configuration.connection_info;
  info.pool_settings = { ...(info.pool_settings ?? {}), max_connections: poolSize };
  info.use_prepared_statements = true;
  for (const t of source.tables as Array<{ table: { name: string }; select_permissions?: unknown[]; update_permissions?: unknown[] }>) {
    const perms = USER_PERMISSIONS[t.table.name];
    if (perms) t.select_permissions = perms;
    const updates = USER_UPDATE_PERMISSIONS[t.table.name];
    if (updates) t.update_permissions = updates;
  }
  await metadata(url, { type: 'replace_metadata', args: md });
}

/** Whether the engine's mutation root has this field yet (mutations are being built). */
export async function hasMutationField(url: string, field: string): Promise<boolean> {
  const res = await postJson(url + '/v1/graphql', { query: '{ __schema { mutationType { fields { name } } } }' });
  const fields: Array<{ name: string }> = res.body?.data?.__schema?.mutationType?.fields ?? [];
  return fields.some((f) => f.name === field);
}
