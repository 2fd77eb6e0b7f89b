/**
 * PostGraphile 4 as the peer, installed by the bench into a cache dir outside the repository
 * (never a dependency of the project) and run with the plan's flags: one process, pool of 10,
 * query log off, list collections, the simplify inflector. The connection-filter plugin gives it
 * the range filters Q2-Q4 need, so its queries are the same work as ours.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { freePort, run, startServer, type ServerProcess } from './proc.js';
import { postJson, waitHealthy } from './engine-process.js';

export const POSTGRAPHILE_PACKAGES = [
  'postgraphile@4.14.1',
  '@graphile-contrib/pg-simplify-inflector@6.1.0',
  'postgraphile-plugin-connection-filter@2.3.0',
];

export const POSTGRAPHILE_DIR = join(homedir(), '.cache', 'svc-bench', 'postgraphile-4.14.1');

export async function installPostGraphile(log: (m: string) => void): Promise<string> {
  const cli = join(POSTGRAPHILE_DIR, 'node_modules', 'postgraphile', 'cli.js');
  const filter = join(POSTGRAPHILE_DIR, 'node_modules', 'postgraphile-plugin-connection-filter');
  if (existsSync(cli) && existsSync(filter)) return cli;
  log(`installing ${POSTGRAPHILE_PACKAGES.join(' ')} into ${POSTGRAPHILE_DIR}`);
  mkdirSync(POSTGRAPHILE_DIR, { recursive: true });
  await run('npm', ['install', '--prefix', POSTGRAPHILE_DIR, '--no-audit', '--no-fund', '--save-exact', '--loglevel=error', ...POSTGRAPHILE_PACKAGES], {
    cwd: POSTGRAPHILE_DIR,
  });
  return cli;
}

export interface PostGraphileProcess extends ServerProcess {
  url: string;
  graphqlUrl: string;
}

export interface PostGraphileProcess extends ServerProcess {
  url: string;
  graphqlUrl: string;
  /** Fills `{{Type->Target}}` names in a query from PostGraphile's schema. */
  resolveNames(query: string): string;
}

export async function startPostGraphile(cli: string, databaseUrl: string, poolSize: number, workDir: string): Promise<PostGraphileProcess> {
  const port = await freePort();
  const args = [
    cli, '-c', databaseUrl, '-s', 'public', '-n', '127.0.0.1', '-p', String(port),
    '--disable-query-log', '--disable-graphiql', '--simple-collections', 'both', '--dynamic-json',
    '--max-pool-size', String(poolSize),
    '--append-plugins', '@graphile-contrib/pg-simplify-inflector,postgraphile-plugin-connection-filter',
  ];
  const server = startServer(process.execPath, args, join(workDir, 'postgraphile.log'), {
    cwd: POSTGRAPHILE_DIR,
    env: { ...process.env, GRAPHILE_TURBO: '1', NODE_ENV: 'production' },
  });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, server, null);
  const graphqlUrl = url + '/graphql';
  const types = await introspect(graphqlUrl, ['Query', 'Author', 'Article']);
  return { ...server, url, graphqlUrl, resolveNames: (query) => resolveNames(query, types) };
}

interface TypeRef { kind: string; name: string | null; ofType: TypeRef | null }
interface Field { name: string; type: TypeRef; args: Array<{ name: string }> }

async function introspect(graphqlUrl: string, typeNames: string[]): Promise<Map<string, Field[]>> {
  const ref = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';
  const query = `{ ${typeNames.map((t) => `${t}: __type(name: "${t}") { fields { name args { name } type { ${ref} } } }`).join(' ')} }`;
  const res = await postJson(graphqlUrl, { query }, { 'content-type': 'application/json' });
  if (res.status !== 200 || !res.body?.data) throw new Error(`PostGraphile introspection failed: ${JSON.stringify(res.body).slice(0, 300)}`);
  return new Map(typeNames.map((t) => [t, (res.body.data[t]?.fields ?? []) as Field[]]));
}

function unwrap(t: TypeRef): { name: string; list: boolean } {
  let list = false;
  let cur: TypeRef | null = t;
  while (cur && cur.name === null) {
    if (cur.kind === 'LIST') list = true;
    cur = cur.ofType;
  }
  return { name: cur?.name ?? '', list };
}

/**
 * `{{From->Target}}`: the one field of `From` returning a `Target` object; `[Target]` a plain list
 * of them (not a connection); `Target(arg)` one taking that argument. Fails naming the choices.
 */
function resolveNames(query: string, types: Map<string, Field[]>): string {
  return query.replace(/\{\{(\w+)->(\[?)(\w+)\]?(?:\((\w+)\))?\}\}/g, (whole, from: string, list: string, target: string, arg?: string) => {
    const fields = types.get(from) ?? [];
    const matches = fields.filter((f) => {
      const t = unwrap(f.type);
      return t.name === target && t.list === (list === '[') && (!arg || f.args.some((a) => a.name === arg));
    });
    if (matches.length !== 1) {
      throw new Error(`PostGraphile: ${whole} matches ${matches.map((m) => m.name).join(', ') || 'nothing'} among ${from}'s fields ${fields.map((f) => f.name).join(', ')}`);
    }
    return matches[0]!.name;
  });
}
