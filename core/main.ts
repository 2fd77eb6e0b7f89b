/**
 * The process entry point: `bin/svc-graphql-engine.js` runs the compiled dist/core/main.js;
 * `npm run dev` and tests run this file from source with tsx.
 */
import { runCli } from './cli.js';

await runCli(process.argv, process.env);
