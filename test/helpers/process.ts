/** How tests start the engine as its own process from the TypeScript sources (`npm run dev` does the same). */
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Node arguments before the command: the tsx loader, the SDK's source export, the entry point. */
export const SOURCE_ENTRY: readonly string[] = ['--conditions=svc-source', '--import', 'tsx', join(REPO_ROOT, 'core', 'main.ts')];

/** A free loopback port, for an engine started as its own process (port 0 cannot be read back from it). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolvePort(port));
    });
    srv.on('error', reject);
  });
}
