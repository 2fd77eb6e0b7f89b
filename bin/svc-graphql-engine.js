#!/usr/bin/env node
// Runs the compiled engine in dist/ (`npm run build`; `npm start` builds first when the sources
// changed), so production never compiles TypeScript. `npm run dev` runs the sources instead.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/core/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('svc-graphql-engine: dist/ is not built; run `npm run build` (or `npm start`, which builds first)\n');
  process.exit(1);
}

await import('./graphql-production.js');
await import(entry.href);
