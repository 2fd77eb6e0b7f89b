/**
 * The engine as a separate process (from the TypeScript sources, see process.ts), for tests that
 * must kill it for real: a free port picked up front (port 0 can't be read back from another
 * process), and a wait for /healthz that fails fast if the process exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort, SOURCE_ENTRY } from './process.js';

export { freePort };

export async function waitForHealth(url: string, child: ChildProcess, ms: number): Promise<string> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`engine exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) return await res.text();
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('engine did not become healthy in time');
}

export interface EngineProcess {
  child: ChildProcess;
  url: string;
  output(): string;
}

export async function spawnEngine(env: NodeJS.ProcessEnv, args: string[] = ['serve'], healthMs = 60_000): Promise<EngineProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child = spawn(process.execPath, [...SOURCE_ENTRY, ...args], {
    env: { ...env, SVC_GRAPHQL_SERVER_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20000)));
  child.stderr!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20000)));
  try {
    await waitForHealth(url, child, healthMs);
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`${(e as Error).message}\n${output}`);
  }
  return { child, url, output: () => output };
}
