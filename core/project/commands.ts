/**
 * The project commands of the CLI (`init`, `metadata`, `migrate`, `seed`), modelled on the
 * reference CLI: they work on a project folder and talk to a running engine by URL and admin
 * secret. Failures are ProjectErrors: one `error: ...` line (plus detail) and exit code 1.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { ProjectError } from './errors.js';
import { EngineClient } from './client.js';
import { ADMIN_SECRET_ENV, CONFIG_FILE, DEFAULT_ENDPOINT, ENDPOINT_ENV, loadProject, type ProjectConfig, type ProjectFlags } from './config.js';
import { metadataToFiles, readMetadataDir, toYaml, writeMetadataDir, type JsonObject } from './metadata-files.js';
import { diffFileMaps } from './diff.js';
import { createMigration, listLocal, MigrationRunner, NAME_PATTERN, planApply, squash, type ApplyPlan } from './migrations.js';
import { applySeeds, createSeed } from './seeds.js';
import { importReferenceProject } from './reference-import.js';

export interface ProjectIo {
  env: NodeJS.ProcessEnv;
  out(text: string): void;
  cwd?: string;
}

interface TargetOpts extends ProjectFlags {
  databaseName?: string;
}

const withTarget = (cmd: Command): Command =>
  cmd
    .option('--project <dir>', 'project folder (holding config.yaml)', undefined)
    .option('--endpoint <url>', `engine URL (env ${ENDPOINT_ENV}; config.yaml endpoint; default ${DEFAULT_ENDPOINT})`)
    .option('--admin-secret <secret>', `admin secret (env ${ADMIN_SECRET_ENV}; config.yaml admin_secret)`);

const withDatabase = (cmd: Command): Command => cmd.option('--database-name <source>', 'source the migrations or seeds belong to', 'default');

function context(opts: TargetOpts, io: ProjectIo): { project: ProjectConfig; client: EngineClient } {
  const project = loadProject(opts, io.env, io.cwd);
  return { project, client: new EngineClient(project.target) };
}

interface ExportV2 {
  resource_version: number;
  metadata: JsonObject;
}

const exportMetadata = (client: EngineClient) => client.metadata<ExportV2>({ type: 'export_metadata', version: 2, args: {} });

function countArg(value: string, name: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new ProjectError(`${name} must be a positive integer, not "${value}"`);
  return Number(value);
}

function versionArg(value: string): string {
  if (!/^\d{1,18}$/.test(value)) throw new ProjectError(`a migration version is digits (its folder's prefix), not "${value}"`);
  return value;
}

export function addProjectCommands(program: Command, io: ProjectIo): void {
  const out = io.out;

  // ---- init ----------------------------------------------------------------------------------
  program
    .command('init')
    .description('create a project folder: config.yaml, metadata/, migrations/, seeds/')
    .argument('<dir>', 'folder to create (must not hold a config.yaml yet)')
    .option('--endpoint <url>', 'engine URL written to config.yaml', DEFAULT_ENDPOINT)
    .action((dir: string, opts: { endpoint: string }) => {
      const root = resolve(io.cwd ?? process.cwd(), dir);
      if (existsSync(join(root, CONFIG_FILE))) throw new ProjectError(`${root} already holds a ${CONFIG_FILE}`);
      mkdirSync(root, { recursive: true });
      writeFileSync(
        join(root, CONFIG_FILE),
        toYaml({ version: 3, endpoint: opts.endpoint, metadata_directory: 'metadata', migrations_directory: 'migrations', seeds_directory: 'seeds' }) +
          `# admin_secret: set SVC_GRAPHQL_ADMIN_SECRET (or --admin-secret) rather than committing it here\n`,
      );
      writeMetadataDir(join(root, 'metadata'), metadataToFiles({ version: 3, sources: [] }));
      for (const d of ['migrations', 'seeds']) mkdirSync(join(root, d), { recursive: true });
      out(`project created in ${root}\n`);
    });

  // ---- metadata ------------------------------------------------------------------------------
  const metadata = program.command('metadata').description('export, apply and inspect the metadata as YAML files');

  withTarget(metadata.command('export').description('write the engine\'s metadata into the project\'s metadata directory')).action(
    async (opts: TargetOpts) => {
      const { project, client } = context(opts, io);
      const { resource_version, metadata: doc } = await exportMetadata(client);
      writeMetadataDir(project.metadataDir, metadataToFiles(doc));
      out(`metadata exported to ${project.metadataDir} (resource version ${resource_version})\n`);
    },
  );

  withTarget(metadata.command('apply').description('replace the engine\'s metadata with the project\'s'))
    .option('--allow-inconsistent', 'apply even if some objects are inconsistent (they are reported)')
    .option('--resource-version <n>', 'refuse unless the engine\'s metadata is at this resource version')
    .action(async (opts: TargetOpts & { allowInconsistent?: boolean; resourceVersion?: string }) => {
      const { project, client } = context(opts, io);
      const local = readMetadataDir(project.metadataDir);
      const expected = opts.resourceVersion === undefined ? (await exportMetadata(client)).resource_version : countArg(opts.resourceVersion, '--resource-version');
      const result = await client.metadata<{ is_consistent?: boolean; inconsistent_objects?: unknown[] }>({
        type: 'replace_metadata',
        version: 2,
        resource_version: expected,
        args: { metadata: local, allow_inconsistent_metadata: opts.allowInconsistent === true },
      });
      const after = await exportMetadata(client);
      out(`metadata applied (resource version ${expected} -> ${after.resource_version})\n`);
      if (result.is_consistent === false) {
        out(`inconsistent objects:\n${toYaml(result.inconsistent_objects ?? [])}`);
      }
    });

  withTarget(metadata.command('diff').description('show how the project\'s metadata differs from the engine\'s'))
    .option('--exit-code', 'exit with 1 when there are differences')
    .action(async (opts: TargetOpts & { exitCode?: boolean }) => {
      const { project, client } = context(opts, io);
      // Both sides rendered the same way, so only meaning shows, not formatting.
      const local = metadataToFiles(readMetadataDir(project.metadataDir));
      const server = metadataToFiles((await exportMetadata(client)).metadata);
      const diffs = diffFileMaps(server, local);
      if (diffs.length === 0) {
        out('no differences: the engine\'s metadata matches the project\n');
        return;
      }
      for (const d of diffs) out(`${d.change === 'modified' ? '~' : d.change === 'added' ? '+' : '-'} ${d.path} (${d.change} in the project)\n${d.lines.join('\n')}\n`);
      if (opts.exitCode) throw new ProjectError(`${diffs.length} file(s) differ`);
    });

  withTarget(metadata.command('reload').description('reload the metadata (re-read the database schemas)')).action(async (opts: TargetOpts) => {
    const { client } = context(opts, io);
    const res = await client.metadata<{ is_consistent: boolean; inconsistent_objects?: unknown[] }>({
      type: 'reload_metadata',
      args: { reload_sources: true, reload_remote_schemas: true },
    });
    out(res.is_consistent ? 'metadata reloaded; it is consistent\n' : `metadata reloaded; inconsistent objects:\n${toYaml(res.inconsistent_objects ?? [])}`);
  });

  withTarget(metadata.command('clear').description('reset the engine\'s metadata to empty (tracks nothing)')).action(async (opts: TargetOpts) => {
    const { client } = context(opts, io);
    await client.metadata({ type: 'clear_metadata', args: {} });
    out('metadata cleared\n');
  });

  const inconsistency = metadata.command('inconsistency').description('inconsistent metadata objects');
  withTarget(inconsistency.command('list').description('list inconsistent objects')).action(async (opts: TargetOpts) => {
    const { client } = context(opts, io);
    const res = await client.metadata<{ is_consistent: boolean; inconsistent_objects: unknown[] }>({ type: 'get_inconsistent_metadata', args: {} });
    out(res.is_consistent ? 'metadata is consistent\n' : toYaml(res.inconsistent_objects));
  });
  withTarget(inconsistency.command('drop').description('drop every inconsistent object from the metadata')).action(async (opts: TargetOpts) => {
    const { client } = context(opts, io);
    await client.metadata({ type: 'drop_inconsistent_metadata', args: {} });
    out('inconsistent objects dropped\n');
  });

  withTarget(metadata.command('import').description('convert a reference-engine project or metadata export into this project'))
    .requiredOption('--from-reference <path>', 'the reference project folder (with metadata/) or its exported metadata JSON')
    .action((opts: TargetOpts & { fromReference: string }) => {
      const project = loadProject(opts, io.env, io.cwd);
      const report = importReferenceProject(resolve(io.cwd ?? process.cwd(), opts.fromReference), project);
      out(report);
    });

  // ---- migrate -------------------------------------------------------------------------------
  const migrate = program.command('migrate').description('SQL migrations per source, recorded in svc_catalog.schema_migrations');

  withDatabase(withTarget(migrate.command('create').description('create a migration folder with up.sql and down.sql')))
    .argument('<name>', 'what the migration does (letters, digits, _ and -)')
    .option('--up-sql <sql>', 'the up migration\'s SQL')
    .option('--down-sql <sql>', 'the down migration\'s SQL')
    .option('--from-server', 'the up migration is the schema of the source as it is now (pg_dump --schema-only)')
    .option('--schema <name...>', 'with --from-server: schemas to dump', ['public'])
    .action(async (name: string, opts: TargetOpts & { upSql?: string; downSql?: string; fromServer?: boolean; schema: string[] }) => {
      if (!NAME_PATTERN.test(name)) throw new ProjectError(`invalid migration name "${name}": use letters, digits, _ and -`);
      const project = loadProject(opts, io.env, io.cwd);
      let up = opts.upSql ?? '';
      if (opts.fromServer) {
        const client = new EngineClient(project.target);
        up = await client.pgDump(opts.databaseName ?? 'default', ['-O', '-x', '--schema-only', ...opts.schema.flatMap((s) => ['--schema', s])]);
      }
      const m = createMigration(project.migrationsDir, opts.databaseName ?? 'default', name, { up: withNewline(up), down: withNewline(opts.downSql ?? '') });
      out(`created migration ${m.version}_${m.name} in ${m.dir}\n`);
    });

  withDatabase(withTarget(migrate.command('apply').description('apply pending migrations (or as the options say)')))
    .addOption(new Option('--up <n>', 'apply the next n pending migrations'))
    .addOption(new Option('--down <n>', 'roll back the last n applied migrations (`all` for every one)'))
    .addOption(new Option('--goto <version>', 'apply or roll back until this version is the last applied'))
    .addOption(new Option('--version <version>', 'apply (or with --type down, roll back) only this migration'))
    .addOption(new Option('--type <direction>', 'with --version: up or down').choices(['up', 'down']).default('up'))
    .option('--skip-execution', 'record the migrations as applied (or not) without running their SQL')
    .option('--dry-run', 'print what would run, change nothing')
    .action(async (opts: TargetOpts & { up?: string; down?: string; goto?: string; version?: string; type: 'up' | 'down'; skipExecution?: boolean; dryRun?: boolean }) => {
      const chosen = ['up', 'down', 'goto', 'version'].filter((k) => opts[k as 'up'] !== undefined);
      if (chosen.length > 1) throw new ProjectError(`give at most one of --up, --down, --goto, --version (got ${chosen.map((c) => `--${c}`).join(', ')})`);
      let plan: ApplyPlan = { kind: 'up' };
      if (opts.up !== undefined) plan = { kind: 'up', count: countArg(opts.up, '--up') };
      if (opts.down !== undefined) plan = { kind: 'down', count: opts.down === 'all' ? 'all' : countArg(opts.down, '--down') };
      if (opts.goto !== undefined) plan = { kind: 'goto', version: versionArg(opts.goto) };
      if (opts.version !== undefined) plan = { kind: 'version', version: versionArg(opts.version), direction: opts.type };
      const { project, client } = context(opts, io);
      const source = opts.databaseName ?? 'default';
      const runner = new MigrationRunner(client, source);
      const local = listLocal(project.migrationsDir, source);
      const steps = planApply(local, new Set((await runner.applied()).keys()), plan);
      if (steps.length === 0) {
        out('nothing to apply\n');
        return;
      }
      for (const { migration, direction } of steps) {
        const label = `${migration.version}_${migration.name}`;
        if (opts.dryRun) {
          out(`would ${direction === 'up' ? 'apply' : 'roll back'} ${label}\n`);
          continue;
        }
        await runner[direction](migration, opts.skipExecution === true);
        out(`${direction === 'up' ? 'applied' : 'rolled back'} ${label}${opts.skipExecution ? ' (recorded only, SQL not run)' : ''}\n`);
      }
      if (!opts.dryRun) out(`migrations ${steps[0]!.direction === 'up' && steps.every((s) => s.direction === 'up') ? 'applied' : 'done'} on source ${source}\n`);
    });

  withDatabase(withTarget(migrate.command('status').description('which migrations exist in the project and which are applied'))).action(
    async (opts: TargetOpts) => {
      const { project, client } = context(opts, io);
      const source = opts.databaseName ?? 'default';
      const rows = await new MigrationRunner(client, source).status(listLocal(project.migrationsDir, source));
      const table = [['VERSION', 'NAME', 'SOURCE STATUS', 'DATABASE STATUS'], ...rows.map((r) => [r.version, r.name, r.present ? 'Present' : 'Not Present', r.applied ? 'Applied' : 'Not Applied'])];
      const widths = table[0]!.map((_, c) => Math.max(...table.map((r) => r[c]!.length)));
      for (const r of table) out(`${r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd()}\n`);
    },
  );

  withDatabase(withTarget(migrate.command('squash').description('combine the migrations from a version on into one')))
    .requiredOption('--from <version>', 'first migration to squash (every later one is included)')
    .option('--name <name>', 'name of the squashed migration', 'squashed')
    .option('--delete-source', 'delete the squashed migrations\' folders')
    .action(async (opts: TargetOpts & { from: string; name: string; deleteSource?: boolean }) => {
      const { project, client } = context(opts, io);
      const source = opts.databaseName ?? 'default';
      const runner = new MigrationRunner(client, source);
      const applied = await runner.applied();
      const { squashed, replaced } = squash(project.migrationsDir, source, versionArg(opts.from), opts.name, opts.deleteSource === true);
      out(`squashed ${replaced.length} migration(s) into ${squashed.version}_${squashed.name}\n`);
      // When everything it replaces is applied, so is the squashed migration; otherwise the user decides.
      if (replaced.every((m) => applied.has(m.version))) {
        await runner.record(squashed.version, squashed.name, opts.deleteSource ? replaced.map((m) => m.version) : []);
        out(`recorded ${squashed.version} as applied (its migrations were)\n`);
      } else {
        out(`some squashed migrations are not applied; apply ${squashed.version} with \`migrate apply\` when ready\n`);
      }
    });

  // ---- seed ----------------------------------------------------------------------------------
  const seed = program.command('seed').description('seed data: SQL files per source, applied on demand');

  withDatabase(withTarget(seed.command('create').description('create a seed file')))
    .argument('<name>', 'seed name (letters, digits, _ and -)')
    .option('--from-table <table...>', 'fill it with the rows of these tables now (pg_dump --data-only)')
    .action(async (name: string, opts: TargetOpts & { fromTable?: string[] }) => {
      const project = loadProject(opts, io.env, io.cwd);
      const source = opts.databaseName ?? 'default';
      let sql = `-- seed ${name}: INSERT statements for source ${source}\n`;
      if (opts.fromTable?.length) {
        const client = new EngineClient(project.target);
        sql = await client.pgDump(source, ['--data-only', '--column-inserts', ...opts.fromTable.flatMap((t) => ['--table', t])]);
      }
      const file = createSeed(project.seedsDir, source, name, sql);
      out(`created seed ${file}\n`);
    });

  withDatabase(withTarget(seed.command('apply').description('run the seed files (all, or those named) through run_sql')))
    .option('--file <name...>', 'only these seed files (file names in the source\'s seed folder)')
    .action(async (opts: TargetOpts & { file?: string[] }) => {
      const { project, client } = context(opts, io);
      const applied = await applySeeds(client, project.seedsDir, opts.databaseName ?? 'default', opts.file);
      for (const f of applied) out(`applied seed ${f}\n`);
      out(applied.length === 0 ? 'no seed files to apply\n' : `seeds applied on source ${opts.databaseName ?? 'default'}\n`);
    });
}

const withNewline = (sql: string): string => (sql === '' || sql.endsWith('\n') ? sql : `${sql}\n`);
