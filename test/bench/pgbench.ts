/**
 * pgbench running the engine's SQL as named prepared statements (`-M prepared`): the database's
 * own limit for the same work, with the variables drawn by `\set … random()` as wrk draws them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './proc.js';
import { pgbenchSql } from './sql-template.js';
import type { VarSpec } from './queries.js';

export interface PgbenchResult {
  tps: number;
  transactions: number;
  latencyAvgUs: number;
  failed: number;
}

export function pgbenchScript(template: string, vars: readonly VarSpec[]): string {
  const sets: string[] = [];
  for (const v of vars) if (v.kind === 'int') sets.push(`\\set ${v.name} random(${v.min}, ${v.max})`);
  // Text variables (Q6's title and body) become a number the SQL turns into text.
  if (vars.some((v) => v.kind === 'text')) sets.push('\\set n random(1, 1000000000)');
  return `${sets.join('\n')}\n${pgbenchSql(template)};\n`;
}

export async function runPgbench(
  databaseUrl: string,
  script: string,
  clients: number,
  seconds: number,
  workDir: string,
  name: string,
): Promise<PgbenchResult> {
  const file = join(workDir, `pgbench-${name}.sql`);
  writeFileSync(file, script);
  const u = new URL(databaseUrl);
  const args = [
    '-n', '-M', 'prepared', '-c', String(clients), '-j', '1', '-T', String(seconds), '--random-seed', '12345',
    '-h', u.hostname, '-p', u.port || '5432', '-U', decodeURIComponent(u.username || 'postgres'), '-f', file, u.pathname.slice(1),
  ];
  const out = await run('pgbench', args, { env: { ...process.env, PGPASSWORD: decodeURIComponent(u.password) } });
  const text = out.stdout;
  const num = (re: RegExp) => {
    const m = re.exec(text);
    return m ? Number(m[1]) : NaN;
  };
  const result = {
    tps: num(/tps = ([\d.]+) \(without initial connection time\)/),
    transactions: num(/number of transactions actually processed: (\d+)/),
    latencyAvgUs: num(/latency average = ([\d.]+) ms/) * 1000,
    failed: num(/number of failed transactions: (\d+)/) || 0,
  };
  if (!Number.isFinite(result.tps)) throw new Error(`pgbench output not understood:\n${text}\n${out.stderr}`);
  return result;
}
