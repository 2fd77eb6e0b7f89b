/**
 * Metadata as code: the metadata document as a directory of YAML files, in the reference CLI's
 * layout (config v3), so a project moves over by renaming a few words rather than restructuring:
 *
 *   metadata/version.yaml                       version: 3
 *   metadata/databases/databases.yaml           the sources; `tables`/`functions` are includes
 *   metadata/databases/<source>/tables/tables.yaml        a list of includes, one per table
 *   metadata/databases/<source>/tables/<schema>_<table>.yaml
 *   metadata/databases/<source>/functions/functions.yaml  (and <schema>_<function>.yaml)
 *   metadata/actions.yaml + actions.graphql   handlers, permissions / the SDL of signatures and custom types
 *   metadata/remote_schemas.yaml, query_collections.yaml, allow_list.yaml,
 *   cron_triggers.yaml, inherited_roles.yaml, rest_endpoints.yaml, api_limits.yaml, network.yaml,
 *   metrics_config.yaml, graphql_schema_introspection.yaml, backend_configs.yaml, opentelemetry.yaml
 *
 * An include is the string `!include <path>` (quoted, as the reference writes it; an unquoted
 * `!include` tag reads the same), relative to the file holding it. Only the files of keys the
 * document has are written, and reading takes whichever exist.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parseDocument, stringify, type Tags } from 'yaml';
import { ProjectError } from './errors.js';
import { readActionsGraphql, writeActionsGraphql } from './actions-graphql.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
/** Relative path (with `/`) → file text. */
export type FileMap = Map<string, string>;

/** Top-level keys kept in a file of their own, and the file's name (the reference's names). */
export const TOP_LEVEL_FILES: ReadonlyArray<readonly [key: string, file: string]> = [
  ['remote_schemas', 'remote_schemas.yaml'],
  ['query_collections', 'query_collections.yaml'],
  ['allowlist', 'allow_list.yaml'],
  ['cron_triggers', 'cron_triggers.yaml'],
  ['inherited_roles', 'inherited_roles.yaml'],
  ['rest_endpoints', 'rest_endpoints.yaml'],
  ['api_limits', 'api_limits.yaml'],
  ['metrics_config', 'metrics_config.yaml'],
  ['graphql_schema_introspection', 'graphql_schema_introspection.yaml'],
  ['network', 'network.yaml'],
  ['backend_configs', 'backend_configs.yaml'],
  ['opentelemetry', 'opentelemetry.yaml'],
];
/** `actions` and `custom_types` share actions.yaml, and their SDL is in actions.graphql. */
export const ACTIONS_FILE = 'actions.yaml';
export const ACTIONS_GRAPHQL_FILE = 'actions.graphql';
const INCLUDE = '!include ';

export function toYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}

const includeTag: Tags[number] = {
  tag: '!include',
  resolve: (path: string) => `${INCLUDE}${path}`,
};

export function parseYaml(text: string, file: string): Json {
  const doc = parseDocument(text, { customTags: [includeTag], prettyErrors: true });
  if (doc.errors.length > 0) throw new ProjectError(`${file}: invalid YAML: ${doc.errors[0]!.message}`);
  return (doc.toJS({ maxAliasCount: 100 }) ?? null) as Json;
}

/** A file-system-safe name: `<schema>_<table>` for `{schema, name}`, the values joined otherwise. */
export function objectFileName(name: Json | undefined): string {
  // `{schema, name}` (or `{dataset, name}`...) in any key order: the qualifier first, the name last.
  const parts =
    typeof name === 'object' && name !== null && !Array.isArray(name)
      ? [...Object.entries(name).filter(([k]) => k !== 'name'), ...Object.entries(name).filter(([k]) => k === 'name')].map(([, v]) => String(v))
      : [String(name)];
  return parts.join('_').replace(/[^A-Za-z0-9_.-]/g, (c) => `%${c.charCodeAt(0).toString(16)}`);
}

function uniqueName(base: string, taken: Set<string>): string {
  let name = `${base}.yaml`;
  for (let i = 2; taken.has(name.toLowerCase()); i++) name = `${base}_${i}.yaml`;
  taken.add(name.toLowerCase());
  return name;
}

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The metadata document as files (paths relative to the metadata directory). */
export function metadataToFiles(doc: JsonObject): FileMap {
  const files: FileMap = new Map();
  files.set('version.yaml', toYaml({ version: doc['version'] ?? 3 }));
  const sources = Array.isArray(doc['sources']) ? doc['sources'] : [];
  const dirs = new Set<string>();
  const databases = sources.map((raw) => {
    if (!isObject(raw)) return raw;
    const dir = uniqueName(objectFileName(raw['name']), dirs).slice(0, -'.yaml'.length);
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(raw)) {
      if (key === 'tables' || key === 'functions') {
        if (key === 'functions' && (!Array.isArray(value) || value.length === 0)) continue;
        const list = Array.isArray(value) ? value : [];
        const taken = new Set<string>();
        const includes = list.map((item) => {
          const file = uniqueName(objectFileName(isObject(item) ? item[key === 'tables' ? 'table' : 'function'] : item), taken);
          files.set(`databases/${dir}/${key}/${file}`, toYaml(item));
          return `${INCLUDE}${file}`;
        });
        files.set(`databases/${dir}/${key}/${key}.yaml`, toYaml(includes));
        out[key] = `${INCLUDE}${dir}/${key}/${key}.yaml`;
      } else {
        out[key] = value;
      }
    }
    return out;
  });
  files.set('databases/databases.yaml', toYaml(databases));
  if (doc['actions'] !== undefined || doc['custom_types'] !== undefined) {
    const { yaml, sdl } = writeActionsGraphql(doc);
    files.set(ACTIONS_FILE, toYaml(yaml));
    files.set(ACTIONS_GRAPHQL_FILE, sdl);
  }
  for (const [key, file] of TOP_LEVEL_FILES) if (doc[key] !== undefined) files.set(file, toYaml(doc[key]));
  return files;
}

/** Reads files through includes; `read` gives a file's text by path relative to the root, or undefined. */
export function filesToMetadata(read: (path: string) => string | undefined): JsonObject {
  const load = (path: string, required: boolean): Json | undefined => {
    const text = read(path);
    if (text === undefined) {
      if (required) throw new ProjectError(`metadata file ${path} is missing`);
      return undefined;
    }
    return resolveIncludes(parseYaml(text, path), path, read, new Set([path]));
  };
  const version = load('version.yaml', false);
  const doc: JsonObject = { version: isObject(version) && typeof version['version'] === 'number' ? version['version'] : 3 };
  const databases = load('databases/databases.yaml', false);
  if (databases !== undefined && databases !== null && !Array.isArray(databases)) {
    throw new ProjectError('databases/databases.yaml must hold a list of sources');
  }
  doc['sources'] = databases ?? [];
  const actions = load(ACTIONS_FILE, false);
  if (isObject(actions)) {
    if (actions['actions'] !== undefined) doc['actions'] = actions['actions'];
    if (actions['custom_types'] !== undefined) doc['custom_types'] = actions['custom_types'];
  }
  // Signatures and custom type fields; a project whose actions.yaml holds them whole reads too.
  const sdl = read(ACTIONS_GRAPHQL_FILE);
  if (sdl !== undefined) readActionsGraphql(sdl, doc);
  for (const [key, file] of TOP_LEVEL_FILES) {
    const value = load(file, false);
    if (value !== undefined && value !== null) doc[key] = value;
  }
  return dropEmpty(doc);
}

/** The reference writes empty files (`[]`, `{}`) for absent keys; they mean "absent". */
function dropEmpty(doc: JsonObject): JsonObject {
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'version' || key === 'sources') continue;
    if ((Array.isArray(value) && value.length === 0) || (isObject(value) && Object.keys(value).length === 0)) delete doc[key];
  }
  return doc;
}

function resolveIncludes(value: Json, file: string, read: (path: string) => string | undefined, seen: Set<string>): Json {
  if (typeof value === 'string' && value.startsWith(INCLUDE)) {
    const target = joinRelative(file, value.slice(INCLUDE.length).trim());
    if (seen.has(target)) throw new ProjectError(`${file}: include cycle through ${target}`);
    const text = read(target);
    if (text === undefined) throw new ProjectError(`${file}: included file ${target} is missing`);
    return resolveIncludes(parseYaml(text, target), target, read, new Set([...seen, target]));
  }
  if (Array.isArray(value)) return value.map((v) => resolveIncludes(v, file, read, seen));
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) out[k] = resolveIncludes(v, file, read, seen);
    return out;
  }
  return value;
}

/** `path` relative to the directory of `from`, as a root-relative path with `/`. */
function joinRelative(from: string, path: string): string {
  const parts = from.split('/').slice(0, -1);
  for (const p of path.split('/')) {
    if (p === '..') {
      if (parts.length === 0) throw new ProjectError(`${from}: include ${path} leaves the metadata directory`);
      parts.pop();
    } else if (p !== '.' && p !== '') {
      parts.push(p);
    }
  }
  return parts.join('/');
}

export function readMetadataDir(dir: string): JsonObject {
  if (!existsSync(dir)) throw new ProjectError(`metadata directory ${dir} does not exist (run \`init\` or \`metadata export\` first)`);
  return filesToMetadata((path) => {
    const full = join(dir, ...path.split('/'));
    return existsSync(full) && statSync(full).isFile() ? readFileSync(full, 'utf8') : undefined;
  });
}

/** Every file under `dir`, as a FileMap (for diffs). */
export function readFileMap(dir: string): FileMap {
  const out: FileMap = new Map();
  if (!existsSync(dir)) return out;
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(ya?ml|graphql)$/.test(entry.name)) out.set(relative(dir, full).split(sep).join('/'), readFileSync(full, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

/** Replaces the metadata files under `dir` with `files` (other files there are left alone). */
export function writeMetadataDir(dir: string, files: FileMap): void {
  const root = resolve(dir);
  for (const stale of readFileMap(root).keys()) if (!files.has(stale)) rmSync(join(root, ...stale.split('/')));
  removeEmptyDirs(join(root, 'databases'));
  for (const [path, text] of files) {
    const full = join(root, ...path.split('/'));
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
}

function removeEmptyDirs(dir: string): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) removeEmptyDirs(join(dir, entry.name));
  if (readdirSync(dir).length === 0) rmSync(dir, { recursive: true });
}
