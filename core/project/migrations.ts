/**
 * SQL migrations per source: `migrations/<source>/<version>_<name>/{up,down}.sql`, versions being
 * millisecond timestamps as in the reference CLI. What is applied is recorded in the source's own
 * `svc_catalog.schema_migrations`, written through the engine's run_sql in the same transaction as
 * the migration's SQL, so a failed migration is neither half-applied nor recorded.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProjectError } from './errors.js';
import type { EngineClient } from './client.js';

export const VERSIONS_TABLE = 'svc_catalog.schema_migrations';

const ENSURE_TABLE = `CREATE SCHEMA IF NOT EXISTS svc_catalog;
CREATE TABLE IF NOT EXISTS ${VERSIONS_TABLE} (
  version bigint PRIMARY KEY,
  name text NOT NULL DEFAULT '',
  dirty boolean NOT NULL DEFAULT false,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

export interface LocalMigration {
  version: string;
  name: string;
  dir: string;
  up: string | undefined;
  down: string | undefined;
}

export interface MigrationStatus {
  version: string;
  name: string;
  present: boolean;
  applied: boolean;
}

const DIR_PATTERN = /^(\d{1,18})_(.*)$/;
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

export const compareVersions = (a: string, b: string): number => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);

export function listLocal(migrationsDir: string, source: string): LocalMigration[] {
  const dir = join(migrationsDir, source);
  if (!existsSync(dir)) return [];
  const out: LocalMigration[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const m = DIR_PATTERN.exec(entry.name);
    if (!entry.isDirectory() || !m) continue;
    const path = join(dir, entry.name);
    const read = (f: string) => (existsSync(join(path, f)) ? readFileSync(join(path, f), 'utf8') : undefined);
    out.push({ version: BigInt(m[1]!).toString(), name: m[2]!, dir: path, up: read('up.sql'), down: read('down.sql') });
  }
  const seen = new Map<string, string>();
  for (const m of out) {
    const other = seen.get(m.version);
    if (other) throw new ProjectError(`two migrations have version ${m.version}: ${other} and ${m.dir}`);
    seen.set(m.version, m.dir);
  }
  return out.sort((a, b) => compareVersions(a.version, b.version));
}

/** A new version: now in milliseconds, and after every existing one. */
export function nextVersion(existing: readonly LocalMigration[], now = Date.now()): string {
  const last = existing.at(-1);
  const v = BigInt(now);
  return (last && BigInt(last.version) >= v ? BigInt(last.version) + 1n : v).toString();
}

export function createMigration(
  migrationsDir: string,
  source: string,
  name: string,
  sql: { up: string; down: string },
  version = nextVersion(listLocal(migrationsDir, source)),
): LocalMigration {
  if (!NAME_PATTERN.test(name)) throw new ProjectError(`invalid migration name "${name}": use letters, digits, _ and -`);
  const dir = join(migrationsDir, source, `${version}_${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'up.sql'), sql.up);
  writeFileSync(join(dir, 'down.sql'), sql.down);
  return { version, name, dir, up: sql.up, down: sql.down };
}

const literal = (s: string): string => `'${s.replace(/'/g, "''")}'`;

export class MigrationRunner {
  constructor(
    private readonly client: EngineClient,
    private readonly source: string,
  ) {}

  /** Applied versions (and their names, for those not present locally). */
  async applied(): Promise<Map<string, string>> {
    const res = await this.client.runSql(this.source, `${ENSURE_TABLE};\nSELECT version::text, name FROM ${VERSIONS_TABLE} ORDER BY version`);
    const rows = res.result ?? [];
    return new Map(rows.slice(1).map((r) => [r[0]!, r[1] ?? '']));
  }

  async status(local: readonly LocalMigration[]): Promise<MigrationStatus[]> {
    const applied = await this.applied();
    const rows = new Map<string, MigrationStatus>();
    for (const m of local) rows.set(m.version, { version: m.version, name: m.name, present: true, applied: applied.has(m.version) });
    for (const [version, name] of applied) if (!rows.has(version)) rows.set(version, { version, name, present: false, applied: true });
    return [...rows.values()].sort((a, b) => compareVersions(a.version, b.version));
  }

  async up(m: LocalMigration, skipExecution: boolean): Promise<void> {
    if (!skipExecution && m.up === undefined) throw new ProjectError(`migration ${m.version}_${m.name} has no up.sql`);
    const record = `INSERT INTO ${VERSIONS_TABLE} (version, name) VALUES (${m.version}, ${literal(m.name)})`;
    await this.run(skipExecution ? record : `${m.up}\n;\n${record}`, m);
  }

  async down(m: LocalMigration, skipExecution: boolean): Promise<void> {
    if (!skipExecution && m.down === undefined) throw new ProjectError(`migration ${m.version}_${m.name} has no down.sql`);
    const record = `DELETE FROM ${VERSIONS_TABLE} WHERE version = ${m.version}`;
    await this.run(skipExecution ? record : `${m.down}\n;\n${record}`, m);
  }

  /** Records a version as applied without running anything (squash). */
  async record(version: string, name: string, forget: readonly string[]): Promise<void> {
    const del = forget.length > 0 ? `DELETE FROM ${VERSIONS_TABLE} WHERE version IN (${forget.join(', ')});\n` : '';
    await this.client.runSql(this.source, `${ENSURE_TABLE};\n${del}INSERT INTO ${VERSIONS_TABLE} (version, name) VALUES (${version}, ${literal(name)})`);
  }

  private async run(sql: string, m: LocalMigration): Promise<void> {
    try {
      await this.client.runSql(this.source, `${ENSURE_TABLE};\n${sql}`);
    } catch (e) {
      throw new ProjectError(`migration ${m.version}_${m.name} failed (nothing of it was applied): ${(e as Error).message}`);
    }
  }
}

export type ApplyPlan =
  | { kind: 'up'; count?: number }
  | { kind: 'down'; count: number | 'all' }
  | { kind: 'version'; version: string; direction: 'up' | 'down' }
  | { kind: 'goto'; version: string };

export interface ApplyStep {
  migration: LocalMigration;
  direction: 'up' | 'down';
}

/** What `migrate apply` would run, in order. */
export function planApply(local: readonly LocalMigration[], applied: ReadonlySet<string>, plan: ApplyPlan): ApplyStep[] {
  const pending = local.filter((m) => !applied.has(m.version));
  const done = local.filter((m) => applied.has(m.version)).reverse();
  const find = (version: string): LocalMigration => {
    const m = local.find((l) => l.version === BigInt(version).toString());
    if (!m) throw new ProjectError(`no migration with version ${version} in the project`);
    return m;
  };
  switch (plan.kind) {
    case 'up':
      return pending.slice(0, plan.count ?? pending.length).map((migration) => ({ migration, direction: 'up' }));
    case 'down':
      return done.slice(0, plan.count === 'all' ? done.length : plan.count).map((migration) => ({ migration, direction: 'down' }));
    case 'version': {
      const m = find(plan.version);
      const isApplied = applied.has(m.version);
      if (plan.direction === 'up' && isApplied) throw new ProjectError(`migration ${m.version} is already applied`);
      if (plan.direction === 'down' && !isApplied) throw new ProjectError(`migration ${m.version} is not applied`);
      return [{ migration: m, direction: plan.direction }];
    }
    case 'goto': {
      const target = find(plan.version).version;
      const ups = pending.filter((m) => compareVersions(m.version, target) <= 0).map((migration) => ({ migration, direction: 'up' as const }));
      const downs = done.filter((m) => compareVersions(m.version, target) > 0).map((migration) => ({ migration, direction: 'down' as const }));
      return [...downs, ...ups];
    }
  }
}

/** Squashes every migration from `from` on into one; returns it and the versions it replaces. */
export function squash(
  migrationsDir: string,
  source: string,
  from: string,
  name: string,
  deleteSource: boolean,
): { squashed: LocalMigration; replaced: LocalMigration[] } {
  const local = listLocal(migrationsDir, source);
  const replaced = local.filter((m) => compareVersions(m.version, BigInt(from).toString()) >= 0);
  if (!replaced.some((m) => m.version === BigInt(from).toString())) throw new ProjectError(`no migration with version ${from} in the project`);
  const part = (m: LocalMigration, sql: string | undefined) => `-- ${m.version}_${m.name}\n${(sql ?? '').trimEnd()}\n`;
  const up = replaced.map((m) => part(m, m.up)).join('\n');
  const down = [...replaced].reverse().map((m) => part(m, m.down)).join('\n');
  if (deleteSource) for (const m of replaced) rmSync(m.dir, { recursive: true, force: true });
  const squashed = createMigration(migrationsDir, source, name, { up, down }, nextVersion(local));
  return { squashed, replaced };
}
