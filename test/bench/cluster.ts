/**
 * A private PostgreSQL cluster for the bench, on loopback and a free port, with the plan's
 * settings, in a temp dir on tmpfs (/dev/shm) when there is one. PostgreSQL refuses to run as
 * root, so as root the server commands run as the `postgres` user.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, chownSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, run, type RunResult } from './proc.js';

export interface Cluster {
  url: string;
  port: number;
  dataDir: string;
  /** The postmaster's pid, for PostgreSQL CPU accounting; undefined for an external database. */
  postmasterPid: number | undefined;
  stop(): Promise<void>;
  /** Stops the server (fast shutdown) and keeps its data; `up` starts it again on the same port. */
  down(): Promise<void>;
  up(): Promise<void>;
}

/**
 * `tuned`: the plan's settings, so that the database is not what is measured. `defaults`:
 * PostgreSQL's own defaults (jit on, 128MB shared buffers, synchronous commit), which is what most
 * users run and what exposed catalog statements paying seconds of JIT compilation.
 */
export type ClusterProfile = 'tuned' | 'defaults';

export const CLUSTER_SETTINGS: Record<ClusterProfile, Record<string, string>> = {
  tuned: { shared_buffers: '1GB', max_connections: '100', synchronous_commit: 'off', jit: 'off', timezone: 'UTC' },
  // timezone only changes how timestamps print, which the correctness gate compares.
  defaults: { timezone: 'UTC' },
};

function binDir(): string {
  for (const dir of ['/usr/lib/postgresql/15/bin', '/usr/local/pgsql/bin']) if (existsSync(join(dir, 'initdb'))) return dir;
  return '';
}

export function postgresBinariesAvailable(): boolean {
  return binDir() !== '' || existsSync('/usr/local/bin/initdb') || existsSync('/usr/bin/initdb');
}

const asRoot = process.getuid?.() === 0;

/** Runs a server binary, as `postgres` when we are root. */
function pgRun(bin: string, args: string[]): Promise<RunResult> {
  const dir = binDir();
  const path = dir ? join(dir, bin) : bin;
  return asRoot ? run('runuser', ['-u', 'postgres', '--', path, ...args]) : run(path, args);
}

export async function startCluster(
  log: (m: string) => void,
  profile: ClusterProfile = 'tuned',
  extraSettings: Record<string, string> = {},
): Promise<Cluster> {
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const root = mkdtempSync(join(base, 'svc-bench-pg-'));
  const dataDir = join(root, 'data');
  const port = await freePort();
  const settings = { ...CLUSTER_SETTINGS[profile], ...extraSettings, listen_addresses: '127.0.0.1', port: String(port), unix_socket_directories: root };
  const opts = Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`).join(' ');
  const startServer = () => pgRun('pg_ctl', ['-D', dataDir, '-l', join(root, 'postgres.log'), '-w', '-t', '60', '-o', opts, 'start']);
  try {
    if (asRoot) {
      const { uid, gid } = await postgresIds();
      chownSync(root, uid, gid);
    }
    await pgRun('initdb', ['-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-locale', '-D', dataDir]);
    await startServer();
  } catch (e) {
    rmSync(root, { recursive: true, force: true });
    throw e;
  }
  const postmasterPid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  log(`private PostgreSQL cluster (${profile} settings) on 127.0.0.1:${port} (data in ${dataDir})`);
  await run('psql', [`postgres://postgres@127.0.0.1:${port}/postgres`, '-X', '-q', '-c', 'CREATE DATABASE bench']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/bench`,
    port,
    dataDir,
    postmasterPid,
    async stop() {
      await pgRun('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']).catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
    async down() {
      await pgRun('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
    },
    async up() {
      await startServer();
    },
  };
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  return { uid, gid };
}

/** A database given by URL: used as it is; nothing is started or stopped. */
export function externalCluster(url: string): Cluster {
  const port = Number(new URL(url).port || 5432);
  const notOurs = async (): Promise<void> => {
    throw new Error('an external database is not stopped or started by the bench');
  };
  return { url, port, dataDir: '', postmasterPid: undefined, stop: async () => undefined, down: notOurs, up: notOurs };
}
