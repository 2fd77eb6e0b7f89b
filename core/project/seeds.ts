/**
 * Seed data: `seeds/<source>/<version>_<name>.sql`, applied on demand (not tracked: a seed is
 * written to be run into a fresh or reset database). Each file runs in one run_sql transaction.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProjectError } from './errors.js';
import { NAME_PATTERN } from './migrations.js';
import type { EngineClient } from './client.js';

export function createSeed(seedsDir: string, source: string, name: string, sql: string, now = Date.now()): string {
  if (!NAME_PATTERN.test(name)) throw new ProjectError(`invalid seed name "${name}": use letters, digits, _ and -`);
  const dir = join(seedsDir, source);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${now}_${name}.sql`);
  writeFileSync(file, sql.endsWith('\n') ? sql : `${sql}\n`);
  return file;
}

export function listSeeds(seedsDir: string, source: string): string[] {
  const dir = join(seedsDir, source);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
}

/** Runs the seed files in name order (or only `only`, in that order); returns the names run. */
export async function applySeeds(client: EngineClient, seedsDir: string, source: string, only?: readonly string[]): Promise<string[]> {
  const all = listSeeds(seedsDir, source);
  const chosen = only ?? all;
  for (const f of chosen) if (!all.includes(f)) throw new ProjectError(`no seed file ${f} in ${join(seedsDir, source)}`);
  for (const f of chosen) {
    try {
      await client.runSql(source, readFileSync(join(seedsDir, source, f), 'utf8'));
    } catch (e) {
      throw new ProjectError(`seed ${f} failed (nothing of it was applied): ${(e as Error).message}`);
    }
  }
  return [...chosen];
}
