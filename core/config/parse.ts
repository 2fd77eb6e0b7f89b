/**
 * Turns flags and environment variables into a checked ServerConfig, driven entirely by the
 * option table, so a new option needs no code here. Precedence: flag > env var > default; an
 * empty env var counts as unset (container platforms often set variables to "").
 */
import { BootError } from '../errors.js';
import {
  OPTIONS,
  optionLabel,
  type ConnectionParams,
  type OptionType,
  type OptionValue,
  type ServerOption,
} from '../../config/options.js';
import type { ServerConfig } from './types.js';

export interface ParseInput {
  /** Keyed by long flag name without dashes (`server-port`); `true` for a bare flag. */
  flags: Record<string, string | boolean | undefined>;
  env: NodeJS.ProcessEnv;
}

export interface ParseResult {
  config: ServerConfig;
  warnings: string[];
}

export type OptionSource = 'flag' | 'env' | 'default';

export interface ResolvedOption {
  value: OptionValue | undefined;
  source: OptionSource;
}

export function parseServerConfig(input: ParseInput): ParseResult {
  rejectUnknownFlags(input.flags);
  const values: Record<string, unknown> = {};
  const connection: ConnectionParams = {};
  const connectionFlags: string[] = [];
  const sources = new Map<string, OptionSource>();
  const warnings: string[] = [];

  for (const opt of OPTIONS) {
    const { value, source } = resolveOption(opt, input);
    sources.set(opt.key, source);
    if (source !== 'default' && opt.deprecated) {
      warnings.push(`${optionLabel(opt)} is deprecated; use ${opt.deprecated.replacement} instead`);
    }
    if (value === undefined) continue;
    if (opt.key.startsWith('connection.')) {
      Object.assign(connection, { [opt.key.slice('connection.'.length)]: value });
      if (opt.key !== 'connection.options') connectionFlags.push(`--${opt.flag}`);
    } else {
      values[opt.key] = Array.isArray(value) ? [...value] : value;
    }
  }

  const databaseUrl = chooseDatabaseUrl(
    values.databaseUrl as string | undefined,
    sources.get('databaseUrl') ?? 'default',
    connection,
    connectionFlags,
    warnings,
  );
  if (databaseUrl === undefined) delete values.databaseUrl;
  else values.databaseUrl = databaseUrl;

  return { config: values as unknown as ServerConfig, warnings };
}

/** One option's value and where it came from; throws a BootError for a bad value. */
export function resolveOption(opt: ServerOption, input: ParseInput): ResolvedOption {
  const fromFlag = input.flags[opt.flag];
  // `false` from a caller means "not given" unless the option itself is boolean.
  const booleanKind = opt.type.kind === 'boolean' || opt.type.kind === 'flag';
  if (fromFlag !== undefined && (fromFlag !== false || booleanKind)) {
    return { value: parseValue(opt, fromFlag), source: 'flag' };
  }
  const fromEnv = opt.env ? input.env[opt.env] : undefined;
  if (fromEnv !== undefined && fromEnv.trim() !== '') {
    return { value: parseValue(opt, fromEnv), source: 'env' };
  }
  return { value: opt.default, source: 'default' };
}

/**
 * The database URL the flag-only connection options describe. User, password and database name
 * are URL-encoded; a host starting with `/` is a socket directory and goes to the `host`
 * parameter; connection options go to the `options` parameter.
 */
export function composeDatabaseUrl(params: ConnectionParams): string {
  for (const [part, flag] of [['host', '--host'], ['dbname', '--dbname']] as const) {
    if (!params[part]) {
      throw new BootError(
        'E_OPTION_INVALID',
        `${flag} is required to compose the database URL from --host, --port, --user, --password and --dbname; ` +
          'or give the whole URL with --database-url (SVC_GRAPHQL_DATABASE_URL)',
      );
    }
  }
  const host = params.host as string;
  const enc = encodeURIComponent;
  const auth =
    params.user !== undefined || params.password !== undefined
      ? `${enc(params.user ?? '')}${params.password !== undefined ? `:${enc(params.password)}` : ''}@`
      : '';
  const query: string[] = [];
  let hostPart = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  let port = params.port !== undefined ? `:${params.port}` : '';
  if (host.startsWith('/')) {
    query.push(`host=${enc(host)}`);
    if (params.port !== undefined) query.push(`port=${params.port}`);
    hostPart = '';
    port = '';
  }
  if (params.options !== undefined) query.push(`options=${enc(params.options)}`);
  const qs = query.length > 0 ? `?${query.join('&')}` : '';
  // The reference's --host/--port/... flags describe a PostgreSQL engine database (db/postgres's).
  return `postgres://${auth}${hostPart}${port}/${enc(params.dbname as string)}${qs}`;
}

/**
 * `--database-url` given as a flag wins; connection flags given on the command line beat the env
 * var (they are flags too); `--pg-connection-options` also applies to a whole URL.
 */
function chooseDatabaseUrl(
  url: string | undefined,
  urlSource: OptionSource,
  connection: ConnectionParams,
  connectionFlags: string[],
  warnings: string[],
): string | undefined {
  if (connectionFlags.length > 0 && urlSource !== 'flag') {
    if (url !== undefined) warnings.push(`SVC_GRAPHQL_DATABASE_URL is ignored: ${connectionFlags.join(', ')} given`);
    return composeDatabaseUrl(connection);
  }
  if (connectionFlags.length > 0) {
    warnings.push(`${connectionFlags.join(', ')} ignored: --database-url is given`);
  }
  if (url === undefined || connection.options === undefined) {
    if (url === undefined && connection.options !== undefined) {
      warnings.push('--pg-connection-options ignored: no database URL is given');
    }
    return url;
  }
  if (new URL(url).searchParams.has('options')) {
    warnings.push('--pg-connection-options ignored: the database URL already has an options parameter');
    return url;
  }
  return `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(connection.options)}`;
}

function rejectUnknownFlags(flags: ParseInput['flags']): void {
  for (const name of Object.keys(flags)) {
    if (flags[name] !== undefined && !OPTIONS.some((o) => o.flag === name)) {
      throw new BootError('E_OPTION_INVALID', `unknown option --${name}`);
    }
  }
}

function parseValue(opt: ServerOption, raw: string | boolean): OptionValue {
  const fail = (detail?: string): never => {
    const shown = opt.secret ? '' : ` "${String(raw)}"`;
    const why = detail ? `${detail}; expected ${expectation(opt.type)}` : `expected ${expectation(opt.type)}`;
    throw new BootError('E_OPTION_INVALID', `invalid value${shown} for ${optionLabel(opt)}: ${why}`);
  };
  const t = opt.type;
  if (t.kind === 'boolean' || t.kind === 'flag') {
    if (typeof raw === 'boolean') return raw;
    return parseBoolean(raw) ?? fail();
  }
  if (typeof raw === 'boolean') return fail('a value is required');
  const text = raw.trim();
  if (text === '') return fail();
  switch (t.kind) {
    case 'string':
      // Kept as given: surrounding spaces may be part of a secret.
      return raw;
    case 'url':
      return isUrl(text, t.schemes) ? text : fail();
    case 'integer':
      return parseInteger(text, t.min, t.max) ?? fail();
    case 'port':
      return parseInteger(text, 1, 65535) ?? fail();
    case 'seconds':
      return parseInteger(text, 0) ?? fail();
    case 'milliseconds':
      return parseInteger(text, t.min ?? 0) ?? fail();
    case 'enum':
      return t.values.find((v) => v.toLowerCase() === text.toLowerCase()) ?? fail();
    case 'list':
      return parseList(text, (item) => {
        const alias = t.aliases ? Object.entries(t.aliases).find(([a]) => a.toLowerCase() === item.toLowerCase()) : undefined;
        const wanted = alias ? alias[1] : item;
        const known = t.values?.find((v) => v.toLowerCase() === wanted.toLowerCase());
        if (t.values && !known) return fail(`"${item}" is not allowed`);
        if (t.itemPattern && !t.itemPattern.test(item)) return fail(`"${item}" is not valid`);
        return known ?? item;
      });
    case 'origins':
      if (text === '*') return ['*'];
      return parseList(text, (item) => (isOrigin(item) ? item.toLowerCase() : fail(`"${item}" is not an origin`)));
    case 'json-object':
      return parseJsonObject(text) ?? fail();
  }
}

function expectation(t: OptionType): string {
  const bounds = (min?: number, max?: number): string =>
    min !== undefined && max !== undefined ? ` between ${min} and ${max}` : min !== undefined ? ` of at least ${min}` : '';
  switch (t.kind) {
    case 'string':
      return 'a non-empty string';
    case 'url':
      return `a URL starting with ${t.schemes.map((s) => `${s}://`).join(' or ')}`;
    case 'integer':
      return `an integer${bounds(t.min, t.max)}`;
    case 'port':
      return 'a port number between 1 and 65535';
    case 'seconds':
      return 'a whole number of seconds (0 or more)';
    case 'milliseconds':
      return `a whole number of milliseconds (${t.min ?? 0} or more)`;
    case 'boolean':
    case 'flag':
      return 'a boolean: true/false, t/f, yes/no, y/n or 1/0';
    case 'enum':
      return `one of: ${t.values.join(', ')}`;
    case 'list':
      return t.values ? `a comma-separated list of: ${t.values.join(', ')}` : `a comma-separated list of ${t.itemHint ?? 'names'}`;
    case 'origins':
      return '"*" or a comma-separated list of origins with scheme and optional port, e.g. https://app.example.com, http://localhost:3000, https://*.example.com';
    case 'json-object':
      return 'a JSON object';
  }
}

const TRUE_WORDS = new Set(['true', 't', 'yes', 'y', '1']);
const FALSE_WORDS = new Set(['false', 'f', 'no', 'n', '0']);

export function parseBoolean(raw: string): boolean | undefined {
  const w = raw.trim().toLowerCase();
  return TRUE_WORDS.has(w) ? true : FALSE_WORDS.has(w) ? false : undefined;
}

function parseInteger(text: string, min?: number, max?: number): number | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n)) return undefined;
  if ((min !== undefined && n < min) || (max !== undefined && n > max)) return undefined;
  return n;
}

function parseList(text: string, item: (s: string) => string): string[] {
  const out: string[] = [];
  for (const raw of text.split(',')) {
    const s = raw.trim();
    if (s === '') continue;
    const v = item(s);
    if (!out.includes(v)) out.push(v);
  }
  return out;
}

function isUrl(text: string, schemes: readonly string[]): boolean {
  try {
    return schemes.includes(new URL(text).protocol.slice(0, -1).toLowerCase());
  } catch {
    return false;
  }
}

const LABEL = '[a-z0-9](?:[a-z0-9-]*[a-z0-9])?';
const ORIGIN = new RegExp(
  `^[a-z][a-z0-9+.-]*://(?:(?:\\*\\.)?${LABEL}(?:\\.${LABEL})*|\\[[0-9a-f:.]+\\])(?::(\\d{1,5}))?$`,
  'i',
);

function isOrigin(item: string): boolean {
  const m = ORIGIN.exec(item);
  if (!m) return false;
  const port = m[1];
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
