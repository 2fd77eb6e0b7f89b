/**
 * Headless Chromium for end-to-end tests: Debian's /usr/bin/chromium driven by playwright-core,
 * with a fresh profile and the flags that keep it off the network (this machine has none but
 * loopback), and the console's built assets, rebuilt when the app's sources are newer.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env['SVC_TEST_CHROMIUM'] ?? '/usr/bin/chromium';

const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const APP_DIR = path.join(ROOT, 'plugins/api/console/app');
export const CONSOLE_DIST = path.join(ROOT, 'plugins/api/console/dist');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** Builds the console unless a build newer than every source file is there already. */
export async function ensureConsoleBuilt(): Promise<void> {
  const index = path.join(CONSOLE_DIST, 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newestMtime(APP_DIR)) return;
  await promisify(execFile)('npm', ['run', 'build:console'], { cwd: ROOT, timeout: 480_000, maxBuffer: 16 * 1024 * 1024 });
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`no Chromium at ${CHROMIUM_PATH}: install Debian's chromium package (apt-get install chromium), as .ci/run does`);
  }
  const profile = mkdtempSync(path.join(tmpdir(), 'svc-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1400, height: 900 },
    timeout: 60_000,
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
