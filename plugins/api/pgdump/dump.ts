/**
 * Runs `pg_dump` for a Postgres source and optionally cleans its output the way the reference
 * engine does for migrations (no comments, no session SETs, no statements about the public schema).
 */
import { spawn } from 'node:child_process';
import { EngineError } from '../../../core/sdk/index.js';
import type { PgConnectionTarget } from '../../db/postgres/connection-info.js';

/** Options that would make pg_dump write files on the server or connect elsewhere. */
const REFUSED_OPTIONS = /^(-f|--file|-d|--dbname|-h|--host|-p|--port|-U|--username|-W|--password)(=|$)/;

export function checkDumpOptions(opts: unknown): string[] {
  if (opts === undefined) return [];
  if (!Array.isArray(opts) || !opts.every((o) => typeof o === 'string')) {
    throw new EngineError('parse-failed', 'expected an array of strings for "opts"', { path: '$.opts' });
  }
  for (const [i, o] of opts.entries()) {
    if (REFUSED_OPTIONS.test(o) || /^-[fdhpUW]./.test(o)) {
      throw new EngineError('not-supported', `pg_dump option "${o}" is not allowed: the engine chooses the connection and output`, {
        path: `$.opts[${i}]`,
      });
    }
  }
  return opts as string[];
}

function connectionEnv(target: PgConnectionTarget): { args: string[]; env: NodeJS.ProcessEnv } {
  if (target.kind === 'url') return { args: ['--dbname', target.url], env: {} };
  return {
    args: [],
    env: {
      PGHOST: target.host,
      PGPORT: String(target.port),
      PGUSER: target.user,
      PGDATABASE: target.database,
      ...(target.password ? { PGPASSWORD: target.password } : {}),
    },
  };
}

export function runPgDump(target: PgConnectionTarget, opts: string[], secrets: readonly string[]): Promise<string> {
  const { args, env } = connectionEnv(target);
  return new Promise((resolve, reject) => {
    const child = spawn('pg_dump', [...opts, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e) => reject(new EngineError('unexpected', `cannot run pg_dump: ${e.message}`, { status: 500 })));
    child.on('close', (code) => {
      if (code === 0) return resolve(Buffer.concat(out).toString('utf8'));
      let message = Buffer.concat(err).toString('utf8').trim();
      for (const s of secrets) if (s) message = message.split(s).join('***');
      reject(new EngineError('unexpected', 'pg_dump failed', { status: 400, internal: { exit_code: code, stderr: message } }));
    });
  });
}

const DROPPED_LINES = [
  /^--/,
  /^SET /,
  /^SELECT pg_catalog\.set_config\('search_path'/,
  /^CREATE SCHEMA public;$/,
  /^COMMENT ON SCHEMA public IS /,
  /^ALTER SCHEMA public OWNER TO /,
  /^\\(un)?restrict /,
];

export function cleanDumpOutput(sql: string): string {
  const kept = sql.split('\n').filter((line) => !DROPPED_LINES.some((r) => r.test(line)));
  return kept.join('\n').replace(/\n{3,}/g, '\n\n').trim() + '\n';
}
