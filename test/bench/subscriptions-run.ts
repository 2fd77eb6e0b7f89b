/**
 * `npm run bench:subscriptions [-- --quick] [--subscribers N] [--window S] [--database-url URL]`:
 * the live-query benchmark (test/bench/subscriptions.ts); results in
 * test/bench/results/subscriptions-<mode>/. Full figures need a quiet machine.
 */
import { parseArgs } from 'node:util';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSubscriptionBench, subsBenchOptions } from './subscriptions.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    subscribers: { type: 'string' },
    connections: { type: 'string' },
    window: { type: 'string' },
    'refetch-ms': { type: 'string' },
    'database-url': { type: 'string' },
  },
});
const opts = subsBenchOptions(values.quick ? 'quick' : 'full', repoRoot);
if (values.subscribers) opts.subscribers = Number(values.subscribers);
if (values.connections) opts.connections = Number(values.connections);
if (values.window) opts.windowSeconds = Number(values.window);
if (values['refetch-ms']) opts.refetchMs = Number(values['refetch-ms']);
if (values['database-url']) opts.databaseUrl = values['database-url'];
const { markdown } = await runSubscriptionBench(opts, repoRoot);
console.log('\n' + markdown);
