/**
 * The command line: `svc-graphql-engine <server-flags> serve <command-flags>`, `version`, and the
 * project commands (`init`, `metadata`, `migrate`, `seed`: see project/commands.ts).
 * Options come from the option table; commander only splits the argument list, and
 * parseServerConfig does all checking, so flags, env vars and defaults follow one set of rules.
 * Commander's own `.env()`/`.default()` are not used for that reason.
 */
import { Command, CommanderError, Option, type OutputConfiguration } from 'commander';
import { isBootError } from './errors.js';
import { ENGINE_VERSION } from './version.js';
import { parseServerConfig } from './config/parse.js';
import { addProjectCommands } from './project/commands.js';
import { isProjectError } from './project/errors.js';
import { OPTIONS, findOption, helpDescription, valuePlaceholder, type ServerOption } from '../config/options.js';

export const PROGRAM_NAME = 'svc-graphql-engine';

export interface BuildProgramOptions {
  /** Environment the serve command reads options from; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  output?: OutputConfiguration;
}

export interface CliIo {
  writeOut?(text: string): void;
  writeErr?(text: string): void;
  /** Called with a non-zero code on failure; defaults to process.exit. */
  exit?(code: number): void;
}

export function buildProgram(opts: BuildProgramOptions = {}): Command {
  const env = opts.env ?? process.env;
  const program = new Command(PROGRAM_NAME)
    .description('GraphQL engine: an instant, permissioned GraphQL API over your databases')
    .usage('<server-flags> serve <command-flags>')
    // Set before subcommands are added: they copy these settings when created.
    .exitOverride();
  program.configureOutput({ ...opts.output, outputError: withScopeHint(opts.output) });

  const add = (cmd: Command, o: ServerOption): void => void cmd.addOption(toCommanderOption(o));

  for (const o of OPTIONS) if (o.scope === 'server') add(program, o);
  program.addHelpText('after', `\n${serveOptionsHelp()}`);

  const serveCmd = program
    .command('serve')
    .description('start the GraphQL engine server')
    .configureHelp({ showGlobalOptions: true });
  for (const o of OPTIONS) if (o.scope === 'serve') add(serveCmd, o);
  serveCmd.action(async (_local: unknown, cmd: Command) => {
    const { config, warnings } = parseServerConfig({ flags: commandFlags(cmd), env });
    const { serve } = await import('./serve.js');
    await serve(config, { warnings });
  });

  program
    .command('version')
    .description('print the engine version')
    .action(() => {
      const write = program.configureOutput().writeOut ?? ((s: string) => process.stdout.write(s));
      write(`${PROGRAM_NAME}: ${ENGINE_VERSION}\n`);
    });

  addProjectCommands(program, {
    env,
    out: (text) => (program.configureOutput().writeOut ?? ((s: string) => process.stdout.write(s)))(text),
  });

  return program;
}

/**
 * The flags given to a command and its parents, keyed by long flag name as parseServerConfig
 * expects (commander keys them by camelCase attribute).
 */
export function commandFlags(cmd: Command): Record<string, string | boolean | undefined> {
  const flags: Record<string, string | boolean | undefined> = {};
  for (let c: Command | null = cmd; c; c = c.parent) {
    const values = c.opts();
    for (const opt of c.options) {
      const value = values[opt.attributeName()];
      const flag = opt.long?.slice(2);
      if (flag && findOption(flag) && (typeof value === 'string' || typeof value === 'boolean')) flags[flag] = value;
    }
  }
  return flags;
}

/** Runs the CLI; a BootError is reported by its message alone (no stack) and exits with 1. */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv, io: CliIo = {}): Promise<void> {
  const writeOut = io.writeOut ?? ((s: string) => void process.stdout.write(s));
  const writeErr = io.writeErr ?? ((s: string) => void process.stderr.write(s));
  const exit = io.exit ?? ((code: number) => process.exit(code));
  const program = buildProgram({ env, output: { writeOut, writeErr } });
  try {
    await program.parseAsync(argv, { from: 'node' });
  } catch (e) {
    if (e instanceof CommanderError) {
      // Commander has already printed the help or the error.
      if (e.exitCode !== 0) exit(e.exitCode);
      return;
    }
    if (isBootError(e)) {
      writeErr(`${e.message}\n`);
      exit(1);
      return;
    }
    if (isProjectError(e)) {
      writeErr(`error: ${e.message}\n`);
      exit(e.exitCode);
      return;
    }
    throw e;
  }
}

/** Serve options given before `serve` are the commonest mistake; say where they belong. */
function withScopeHint(output: OutputConfiguration | undefined): (text: string, write: (s: string) => void) => void {
  return (text, write) => {
    const flag = /unknown option '--([^'=\s]+)/.exec(text)?.[1];
    const misplaced = OPTIONS.find((o) => o.flag === flag && o.scope === 'serve');
    const hinted = misplaced ? `${text.trimEnd()} (--${misplaced.flag} is a serve option: give it after \`serve\`)\n` : text;
    if (output?.outputError) output.outputError(hinted, write);
    else write(hinted);
  };
}

function toCommanderOption(o: ServerOption): Option {
  const placeholder = valuePlaceholder(o);
  const flags = `${o.short ? `-${o.short}, ` : ''}--${o.flag}${placeholder ? ` ${placeholder}` : ''}`;
  return new Option(flags, helpDescription(o));
}

/** The serve options, listed in the top-level help too, so one `--help` shows every option. */
function serveOptionsHelp(): string {
  const rows = OPTIONS.filter((o) => o.scope === 'serve').map((o) => {
    const placeholder = valuePlaceholder(o);
    return [`${o.short ? `-${o.short}, ` : '    '}--${o.flag}${placeholder ? ` ${placeholder}` : ''}`, helpDescription(o)];
  });
  const width = Math.max(...rows.map(([term]) => term.length));
  const lines = rows.map(([term, text]) => `  ${term.padEnd(width)}  ${text}`);
  return ['Serve options (give them after `serve`):', ...lines].join('\n');
}
