/**
 * Process helpers for the bench: run a command to completion, start a long-lived server process
 * with its output in a log file, find a free loopback port, and read a process's CPU time.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createServer } from 'node:net';
import { openSync, readFileSync, readdirSync, closeSync, existsSync } from 'node:fs';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command; rejects on a non-zero exit unless `allowFail`, with its stderr in the message. */
export function run(cmd: string, args: readonly string[], options: SpawnOptions & { allowFail?: boolean; input?: string } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...options, stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const result = { code: code ?? -1, stdout, stderr };
      if (result.code !== 0 && !options.allowFail) {
        reject(new Error(`${cmd} ${args.join(' ')} exited with ${result.code}: ${stderr.trim() || stdout.trim()}`));
      } else resolve(result);
    });
    if (options.input !== undefined) {
      child.stdin!.on('error', () => undefined); // a command may exit without reading its input
      child.stdin!.end(options.input);
    }
  });
}

export async function commandExists(cmd: string): Promise<boolean> {
  const r = await run('sh', ['-c', `command -v ${cmd}`], { allowFail: true });
  return r.code === 0;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  child: ChildProcess;
  pid: number;
  logFile: string;
  stop(): Promise<void>;
}

/** A server whose stdout/stderr go to a file: a pipe nobody drains would stall it under load. */
export function startServer(cmd: string, args: readonly string[], logFile: string, options: SpawnOptions = {}): ServerProcess {
  const fd = openSync(logFile, 'a');
  const child = spawn(cmd, args, { ...options, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  if (child.pid === undefined) throw new Error(`could not start ${cmd}`);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    pid: child.pid,
    logFile,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export function logTail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Clock ticks per second of /proc/<pid>/stat times (`getconf CLK_TCK`; 100 on Linux). */
export const CLK_TCK = 100;

interface ProcStat {
  ppid: number;
  /** utime + stime, ticks. */
  own: number;
  /** utime alone, ticks. */
  user: number;
  /** cutime + cstime: children that exited and were waited for. */
  children: number;
}

function procStat(pid: number, tid?: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name may hold spaces and parentheses; the fields after the last ')' are fixed.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), user: Number(f[11]), children: Number(f[13]) + Number(f[14]) };
}

/** CPU microseconds a process has used (user + system). */
export function processCpuMicros(pid: number): number {
  const s = procStat(pid);
  return s ? (s.own * 1e6) / CLK_TCK : 0;
}

/**
 * CPU microseconds a process has used, to the nanosecond: the sum of its threads' time on a CPU
 * from /proc/<pid>/task/<tid>/schedstat. /proc/<pid>/stat counts in 10-ms ticks, which for a
 * process that uses a few tens of milliseconds in a phase (a rate-limit store's backend) is most of
 * the figure; falls back to the ticks where schedstat is not kept.
 */
export function processCpuPreciseMicros(pid: number): number {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  let ns = 0;
  for (const tid of tids) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended between the listing and the read: its time is gone with it.
      if (existsSync(`/proc/${pid}/task/${tid}`)) return processCpuMicros(pid);
    }
  }
  return ns / 1000;
}

/**
 * CPU microseconds a process has used, split: in its own code (user) and in the kernel on its
 * behalf (system: its syscalls, and on loopback the receiving side's TCP work its writes do); and
 * how much of the whole its main thread used (the rest: V8's GC and compiler threads, libuv's pool).
 */
export function processCpuSplitMicros(pid: number): { userUs: number; systemUs: number; mainThreadUs: number } {
  const s = procStat(pid);
  // The main thread's task has the process's id; the others are V8's (GC, compiler) and libuv's.
  const main = procStat(pid, pid);
  if (!s) return { userUs: 0, systemUs: 0, mainThreadUs: 0 };
  return { userUs: (s.user * 1e6) / CLK_TCK, systemUs: ((s.own - s.user) * 1e6) / CLK_TCK, mainThreadUs: main ? (main.own * 1e6) / CLK_TCK : 0 };
}

/**
 * CPU microseconds of a process tree one level deep: the PostgreSQL postmaster, its live backends,
 * and backends that already exited (counted in the postmaster's children times).
 */
export function treeCpuMicros(rootPid: number): number {
  const root = procStat(rootPid);
  if (!root) return 0;
  let ticks = root.own + root.children;
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === rootPid) continue;
    const s = procStat(pid);
    if (s && s.ppid === rootPid) ticks += s.own;
  }
  return (ticks * 1e6) / CLK_TCK;
}

/** The pid of the local Redis server (its CPU counts as a rate-limit store's), when one runs. */
export async function redisServerPid(): Promise<number | undefined> {
  const r = await run('pidof', ['redis-server'], { allowFail: true }).catch(() => undefined);
  const pid = Number(r?.stdout.trim().split(/\s+/)[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
