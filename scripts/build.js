#!/usr/bin/env node
// Compiles the engine to dist/ with tsc (tsconfig.build.json). With --if-needed it does nothing
// when dist/ is newer than every source file, so `npm start` only pays for a build after a change.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const stamp = join(dist, '.build-stamp');
const inputs = ['core', 'plugins', 'config', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];

function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let latest = st.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

if (process.argv.includes('--if-needed') && existsSync(stamp)) {
  const built = statSync(stamp).mtimeMs;
  if (inputs.every((p) => newest(join(root, p)) <= built)) process.exit(0);
}

// A clean build, so files of deleted sources do not linger in dist/.
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
process.stderr.write('svc-graphql-engine: compiling to dist/ ...\n');
try {
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
} catch {
  process.exit(1);
}
writeFileSync(stamp, new Date().toISOString() + '\n');
