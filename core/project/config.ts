/**
 * A project folder (the reference CLI's config v3 layout): `config.yaml` naming the engine and
 * the directories of metadata, migrations and seeds. The engine's URL and admin secret come from
 * flags, else the environment (SVC_GRAPHQL_ENDPOINT, SVC_GRAPHQL_ADMIN_SECRET), else config.yaml,
 * else http://localhost:8080 without a secret.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ProjectError } from './errors.js';
import { parseYaml, type Json } from './metadata-files.js';
import type { EngineTarget } from './client.js';

export const CONFIG_FILE = 'config.yaml';
export const DEFAULT_ENDPOINT = 'http://localhost:8080';
export const ENDPOINT_ENV = 'SVC_GRAPHQL_ENDPOINT';
export const ADMIN_SECRET_ENV = 'SVC_GRAPHQL_ADMIN_SECRET';

export interface ProjectConfig {
  dir: string;
  target: EngineTarget;
  metadataDir: string;
  migrationsDir: string;
  seedsDir: string;
}

export interface ProjectFlags {
  project?: string;
  endpoint?: string;
  adminSecret?: string;
}

export function loadProject(flags: ProjectFlags, env: NodeJS.ProcessEnv, cwd = process.cwd()): ProjectConfig {
  const dir = resolve(cwd, flags.project ?? '.');
  const file = join(dir, CONFIG_FILE);
  let fromFile: Record<string, Json> = {};
  if (existsSync(file)) {
    const parsed = parseYaml(readFileSync(file, 'utf8'), file);
    if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed))) throw new ProjectError(`${file} must be a mapping`);
    fromFile = parsed ?? {};
    const version = fromFile['version'];
    if (version !== undefined && version !== 3) {
      throw new ProjectError(`${file}: config version ${String(version)} is not supported; use version: 3 (metadata directory layout)`);
    }
  } else if (flags.project !== undefined) {
    throw new ProjectError(`${dir} is not a project folder (no ${CONFIG_FILE}); create one with \`init\``);
  }
  const str = (key: string): string | undefined => {
    const v = fromFile[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw new ProjectError(`${file}: ${key} must be a string`);
    return v;
  };
  const endpoint = flags.endpoint ?? env[ENDPOINT_ENV] ?? str('endpoint') ?? DEFAULT_ENDPOINT;
  try {
    const url = new URL(endpoint);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw new ProjectError(`invalid engine endpoint "${endpoint}": expected an http(s) URL such as ${DEFAULT_ENDPOINT}`);
  }
  const adminSecret = flags.adminSecret ?? env[ADMIN_SECRET_ENV] ?? str('admin_secret');
  return {
    dir,
    target: { endpoint, ...(adminSecret ? { adminSecret } : {}) },
    metadataDir: join(dir, str('metadata_directory') ?? 'metadata'),
    migrationsDir: join(dir, str('migrations_directory') ?? 'migrations'),
    seedsDir: join(dir, str('seeds_directory') ?? 'seeds'),
  };
}
