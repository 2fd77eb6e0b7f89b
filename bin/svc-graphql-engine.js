#!/usr/bin/env node
// The engine is written in TypeScript and run from source; tsx compiles it on load.
import { register } from 'tsx/esm/api';

register();

const { runCli } = await import('../core/cli.ts');
await runCli(process.argv, process.env);
