/**
 * `metadata import --from-reference`: moves a project of the reference engine over. Its metadata
 * names things with the vendor's word, which this engine reads differently: a permission
 * comparing with `X-Hasura-User-Id` would compare with that literal text, a header
 * `X-Hasura-Role` would be sent as is, `{from_env: HASURA_GRAPHQL_DATABASE_URL}` names a variable
 * nobody sets. The conversion renames, in every string and key of the document:
 *
 *   X-Hasura-<name> / x-hasura-<name>     → X-Svc-<name> / x-svc-<name> (session variables, headers)
 *   HASURA_GRAPHQL_<NAME>                 → SVC_GRAPHQL_<NAME> (environment references, templates)
 *   hasura_fields (remote relationships)  → svc_fields
 *   mssql_ / citus_ / bigquery_ op types  → sqlb_ / dist_ / wh_ (bulk documents)
 *
 * Source kinds (postgres, citus, mssql, bigquery) keep their names, as do `read_replicas` (the
 * postgres kind reads from them). The report lists what changed, the environment variables the
 * metadata needs, and the `claims_map` that reads tokens minted for the reference engine.
 */
import { cpSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ProjectError } from './errors.js';
import { metadataToFiles, readMetadataDir, writeMetadataDir, parseYaml, type Json, type JsonObject } from './metadata-files.js';
import type { ProjectConfig } from './config.js';

/** The reference's default claims namespace, where its tokens carry the session. */
export const REFERENCE_CLAIMS_NAMESPACE = 'https://hasura.io/jwt/claims';

const SESSION_PREFIX = /\b([xX])-(hasura|HASURA|Hasura)-/g;
const ENV_PREFIX = /\bHASURA_GRAPHQL_/g;
const OPERATION_PREFIXES: Readonly<Record<string, string>> = { mssql_: 'sqlb_', citus_: 'dist_', bigquery_: 'wh_' };
const KNOWN_KINDS = new Set(['postgres', 'pg', 'citus', 'mssql', 'bigquery']);

export interface Conversion {
  metadata: JsonObject;
  sessionVariables: Set<string>;
  envVars: Set<string>;
  renamed: { session: number; env: number; keys: number; operations: number };
  warnings: string[];
}

function svcCase(x: string, word: string): string {
  return word === 'HASURA' ? `${x}-SVC-` : word === 'Hasura' ? `${x}-Svc-` : `${x}-svc-`;
}

/** Converts one reference metadata document (export format) to this engine's names. */
export function convertReferenceMetadata(doc: JsonObject): Conversion {
  const c: Conversion = {
    metadata: {},
    sessionVariables: new Set(),
    envVars: new Set(),
    renamed: { session: 0, env: 0, keys: 0, operations: 0 },
    warnings: [],
  };
  const str = (s: string, key: string | undefined): string => {
    let out = s.replace(SESSION_PREFIX, (_m, x: string, word: string) => {
      c.renamed.session++;
      return svcCase(x, word);
    });
    out = out.replace(ENV_PREFIX, () => {
      c.renamed.env++;
      return 'SVC_GRAPHQL_';
    });
    if (key === 'type') {
      for (const [from, to] of Object.entries(OPERATION_PREFIXES)) {
        if (out.startsWith(from)) {
          c.renamed.operations++;
          out = to + out.slice(from.length);
        }
      }
    }
    // Session variables are values (`_eq: X-Svc-User-Id`, presets); header names sit under `name`.
    if (key !== 'name' && /^x-svc-[A-Za-z0-9_-]+$/i.test(out)) c.sessionVariables.add(out.toLowerCase());
    if (key && /(^|_)from_env$|^value_from_env$/.test(key)) c.envVars.add(out);
    for (const m of out.matchAll(/\{\{\s*([A-Z_][A-Z0-9_]*)\s*\}\}/g)) c.envVars.add(m[1]!);
    return out;
  };
  const walk = (v: Json, key: string | undefined): Json => {
    if (typeof v === 'string') return str(v, key);
    if (Array.isArray(v)) return v.map((x) => walk(x, undefined));
    if (v && typeof v === 'object') {
      const out: JsonObject = {};
      for (const [k, val] of Object.entries(v)) {
        const name = k === 'hasura_fields' ? 'svc_fields' : str(k, undefined);
        if (name !== k) c.renamed.keys++;
        out[name] = walk(val, k);
      }
      return out;
    }
    return v;
  };
  c.metadata = walk(doc, undefined) as JsonObject;
  for (const s of Array.isArray(c.metadata['sources']) ? c.metadata['sources'] : []) {
    if (s && typeof s === 'object' && !Array.isArray(s)) {
      const kind = s['kind'];
      if (kind === 'pg') s['kind'] = 'postgres';
      else if (typeof kind === 'string' && !KNOWN_KINDS.has(kind)) {
        c.warnings.push(`source ${String(s['name'])} has kind "${kind}", which this engine does not know; load a plugin for it or remove the source`);
      }
    }
  }
  return c;
}

/** The `claims_map` that reads the session from tokens in the reference's claims namespace. */
export function referenceClaimsMap(sessionVariables: Iterable<string>, namespace = REFERENCE_CLAIMS_NAMESPACE): JsonObject {
  const path = (claim: string) => ({ path: `$['${namespace}']['${claim}']` });
  const map: JsonObject = {
    'x-svc-allowed-roles': path('x-hasura-allowed-roles'),
    'x-svc-default-role': path('x-hasura-default-role'),
  };
  const skip = new Set(['x-svc-role', 'x-svc-allowed-roles', 'x-svc-default-role', 'x-svc-admin-secret', 'x-svc-access-key']);
  for (const v of [...sessionVariables].sort()) {
    if (skip.has(v)) continue;
    map[v] = path(v.replace(/^x-svc-/, 'x-hasura-'));
  }
  return map;
}

/** Reads the reference project (folder) or export (JSON file) at `path`. */
export function readReferenceMetadata(path: string): JsonObject {
  if (!existsSync(path)) throw new ProjectError(`${path} does not exist`);
  if (statSync(path).isFile()) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8'));
    } catch (e) {
      throw new ProjectError(`${path}: not a metadata export (invalid JSON: ${(e as Error).message})`);
    }
    const doc = parsed as JsonObject;
    // `export_metadata` version 2 wraps the document with its resource version.
    const inner = doc && typeof doc === 'object' && 'metadata' in doc && 'resource_version' in doc ? doc['metadata'] : doc;
    if (!inner || typeof inner !== 'object' || Array.isArray(inner)) throw new ProjectError(`${path}: not a metadata export (expected an object)`);
    return inner as JsonObject;
  }
  const dir = metadataDirOf(path);
  // readMetadataDir merges actions.graphql too.
  return readMetadataDir(dir);
}

function metadataDirOf(path: string): string {
  const config = join(path, 'config.yaml');
  if (existsSync(config)) {
    const parsed = parseYaml(readFileSync(config, 'utf8'), config);
    const v = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed['version'] : undefined;
    if (v !== undefined && v !== 3) {
      throw new ProjectError(`${config}: config version ${String(v)}; only version 3 projects (metadata directory) can be imported — upgrade it with the reference CLI's \`scripts update-project-v3\` first`);
    }
    const md = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed['metadata_directory'] : undefined;
    return join(path, typeof md === 'string' ? md : 'metadata');
  }
  return existsSync(join(path, 'metadata')) ? join(path, 'metadata') : path;
}

/** Converts and writes into the project; returns the report to print. */
export function importReferenceProject(from: string, project: ProjectConfig): string {
  const c = convertReferenceMetadata(readReferenceMetadata(from));
  writeMetadataDir(project.metadataDir, metadataToFiles(c.metadata));
  const lines = [`imported the reference metadata from ${from} into ${project.metadataDir}`];
  lines.push(
    `renamed: ${c.renamed.session} session variable/header name(s) (X-Hasura-* -> X-Svc-*), ${c.renamed.env} environment reference(s) (HASURA_GRAPHQL_* -> SVC_GRAPHQL_*), ${c.renamed.keys} key(s), ${c.renamed.operations} operation type(s)`,
  );
  if (statSync(from).isDirectory()) {
    for (const d of ['migrations', 'seeds'] as const) {
      const src = join(from, d);
      const dest = d === 'migrations' ? project.migrationsDir : project.seedsDir;
      if (existsSync(src)) {
        cpSync(src, dest, { recursive: true, errorOnExist: false, force: false });
        lines.push(`copied ${d}/ to ${dest}`);
      }
    }
    if (existsSync(join(from, 'migrations'))) {
      lines.push(
        'migrations already applied by the reference engine are not recorded here yet: mark them with `migrate apply --skip-execution` (per source, `--database-name`)',
      );
    }
  }
  for (const w of c.warnings) lines.push(`warning: ${w}`);
  if (c.envVars.size > 0) lines.push(`environment variables the metadata reads: ${[...c.envVars].sort().join(', ')}`);
  lines.push(
    `tokens minted for the reference engine carry the session in "${REFERENCE_CLAIMS_NAMESPACE}"; to read them, add this claims_map to SVC_GRAPHQL_JWT_SECRET:`,
  );
  lines.push(JSON.stringify({ claims_map: referenceClaimsMap(c.sessionVariables) }, null, 2));
  lines.push('review the result with `metadata diff`, then `metadata apply`');
  return `${lines.join('\n')}\n`;
}
