/** Runs the CLI in-process (the same runCli the binary runs) and captures its output and exit code. */
import { createServer } from 'node:net';
import { runCli } from '../../../core/cli.js';

/** A loopback port nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

export async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  let out = '';
  let err = '';
  let code = 0;
  await runCli(['node', 'svc-graphql-engine', ...args], env, {
    writeOut: (s) => void (out += s),
    writeErr: (s) => void (err += s),
    exit: (c) => void (code = c),
  });
  return { code, out, err };
}
