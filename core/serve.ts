/**
 * The `serve` command: start the engine and shut it down cleanly on SIGTERM/SIGINT (a second
 * signal forces the exit).
 */
import type { ServerConfig } from './config/types.js';
import { startEngine } from './engine.js';

export async function serve(config: ServerConfig, opts: { warnings: string[] }): Promise<void> {
  const engine = await startEngine(config, { warnings: opts.warnings });
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(1);
    signalled = true;
    engine.close(`received ${signal}`).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
