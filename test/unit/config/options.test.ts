/**
 * Every option in the table is checked the same way (by flag, by env var, default, precedence,
 * bad value), so an option added to the table is covered without touching this file.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { REPO_ROOT, SOURCE_ENTRY } from '../../helpers/process.js';
import { BootError } from '../../../core/errors.js';
import { ENGINE_VERSION } from '../../../core/version.js';
import { composeDatabaseUrl, parseServerConfig, type ParseInput } from '../../../core/config/parse.js';
import { buildProgram, commandFlags, runCli } from '../../../core/cli.js';
import type { Command } from 'commander';
import { OPTIONS, type ServerOption, type UncoveredConfigKeys } from '../../../config/options.js';
import { CONFIG_DOC_PATH, renderConfigDoc } from './render-config-doc.js';

interface Sample {
  raw: string;
  expected: unknown;
}

/** Two distinct valid values per option, both different from its default. */
function samples(o: ServerOption): [Sample, Sample] {
  const t = o.type;
  switch (t.kind) {
    case 'string':
      return [
        { raw: 'sample-value', expected: 'sample-value' },
        { raw: 'other value', expected: 'other value' },
      ];
    case 'url':
      return t.schemes.includes('postgres')
        ? [
            { raw: 'postgres://u:p@db.example.com:5432/app', expected: 'postgres://u:p@db.example.com:5432/app' },
            { raw: 'postgresql://x@other.example.com/z', expected: 'postgresql://x@other.example.com/z' },
          ]
        : t.schemes.includes('redis')
          ? [
              { raw: 'redis://127.0.0.1:6379/0', expected: 'redis://127.0.0.1:6379/0' },
              { raw: 'rediss://:secret@cache.example.com:6380', expected: 'rediss://:secret@cache.example.com:6380' },
            ]
          : [
              { raw: 'https://auth.example.com/hook', expected: 'https://auth.example.com/hook' },
              { raw: 'http://localhost:3000/hook', expected: 'http://localhost:3000/hook' },
            ];
    case 'integer':
    case 'milliseconds': {
      const base = t.min ?? 0;
      return [
        { raw: String(base + 7), expected: base + 7 },
        { raw: String(base + 9), expected: base + 9 },
      ];
    }
    case 'port':
      return [
        { raw: '4321', expected: 4321 },
        { raw: '4322', expected: 4322 },
      ];
    case 'seconds':
      return [
        { raw: '42', expected: 42 },
        { raw: '43', expected: 43 },
      ];
    case 'boolean':
    case 'flag': {
      const flip = o.default !== true;
      return [
        { raw: flip ? 'yes' : 'no', expected: flip },
        { raw: flip ? 'false' : 'true', expected: !flip },
      ];
    }
    case 'enum': {
      const others = t.values.filter((v) => v !== o.default);
      return [
        { raw: others[0] as string, expected: others[0] },
        { raw: others[1] ?? (o.default as string), expected: others[1] ?? o.default },
      ];
    }
    case 'list':
      return t.values
        ? [
            { raw: t.values.slice(0, 2).join(', '), expected: t.values.slice(0, 2) },
            { raw: t.values.slice(-1).join(','), expected: t.values.slice(-1) },
          ]
        : [
            { raw: 'startup, query-log', expected: ['startup', 'query-log'] },
            { raw: 'http-log', expected: ['http-log'] },
          ];
    case 'origins':
      return [
        {
          raw: 'https://App.example.com, https://*.b.example.com:8443',
          expected: ['https://app.example.com', 'https://*.b.example.com:8443'],
        },
        { raw: '*', expected: ['*'] },
      ];
    case 'json-object':
      return [
        { raw: '{"type":"HS256","key":"0123456789abcdef0123456789abcdef"}', expected: { type: 'HS256', key: '0123456789abcdef0123456789abcdef' } },
        { raw: '{"jwk_url":"https://x.example.com/jwks"}', expected: { jwk_url: 'https://x.example.com/jwks' } },
      ];
  }
}

function badValue(o: ServerOption): string {
  const byKind: Record<ServerOption['type']['kind'], string> = {
    string: '',
    url: 'not a url',
    integer: 'abc',
    port: '70000',
    seconds: '-1',
    milliseconds: '1.5',
    boolean: 'maybe',
    flag: 'maybe',
    enum: 'bogus',
    list: 'bogus item!',
    origins: 'example.com',
    'json-object': 'not json',
  };
  return byKind[o.type.kind];
}

const isConnection = (o: ServerOption): boolean => o.key.startsWith('connection.');
/** The connection options need a host and a database name to compose a URL at all. */
const CONNECTION_BASE: Record<string, string> = { host: 'db.local', dbname: 'app' };

function parse(flags: ParseInput['flags'], env: NodeJS.ProcessEnv = {}) {
  return parseServerConfig({ flags, env });
}

function valueOf(o: ServerOption, flags: ParseInput['flags'], env: NodeJS.ProcessEnv = {}): unknown {
  if (!isConnection(o)) return (parse(flags, env).config as unknown as Record<string, unknown>)[o.key];
  const url = parse({ ...CONNECTION_BASE, ...flags }, env).config.databaseUrl;
  if (url === undefined) return undefined;
  const u = new URL(url);
  switch (o.key) {
    case 'connection.host':
      return u.hostname;
    case 'connection.port':
      return Number(u.port);
    case 'connection.user':
      return decodeURIComponent(u.username);
    case 'connection.password':
      return decodeURIComponent(u.password);
    case 'connection.dbname':
      return decodeURIComponent(u.pathname.slice(1));
    default:
      return u.searchParams.get('options');
  }
}

function expectBootError(fn: () => unknown, ...fragments: string[]): BootError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught, 'expected a BootError').to.be.instanceOf(BootError);
  const err = caught as BootError;
  expect(err.code).to.equal('E_OPTION_INVALID');
  for (const f of fragments) expect(err.message).to.include(f);
  return err;
}

describe('server options: every option in the table', () => {
  it('covers every ServerConfig field, with unique keys, flags, shorts and env vars', () => {
    const allCovered: [UncoveredConfigKeys] extends [never] ? true : false = true;
    expect(allCovered).to.equal(true);
    for (const field of ['key', 'flag', 'short', 'env'] as const) {
      const seen = OPTIONS.map((o) => o[field]).filter((v) => v !== undefined);
      expect(new Set(seen).size, field).to.equal(seen.length);
    }
    for (const o of OPTIONS) {
      expect(o.env === undefined, `--${o.flag} env`).to.equal(isConnection(o));
      if (o.env) expect(o.env).to.match(/^SVC_GRAPHQL_[A-Z0-9_]+$/);
      expect(o.description.length, `--${o.flag} description`).to.be.greaterThan(0);
    }
  });

  for (const o of OPTIONS) {
    describe(`--${o.flag}${o.env ? ` / ${o.env}` : ''}`, () => {
      const [a, b] = samples(o);
      const flagValue = (s: Sample): string | boolean => (o.type.kind === 'flag' ? s.expected === true : s.raw);

      it('is accepted by flag', () => {
        if (o.type.kind === 'flag') expect(valueOf(o, { [o.flag]: true })).to.equal(true);
        else expect(valueOf(o, { [o.flag]: a.raw })).to.deep.equal(a.expected);
      });

      if (o.env) {
        const env = o.env;
        it('is accepted by env var', () => {
          expect(valueOf(o, {}, { [env]: a.raw })).to.deep.equal(a.expected);
        });
        it('prefers the flag to the env var', () => {
          const flagSample = o.type.kind === 'flag' ? (a.expected === true ? a : b) : a;
          const envSample = flagSample === a ? b : a;
          expect(valueOf(o, { [o.flag]: flagValue(flagSample) }, { [env]: envSample.raw })).to.deep.equal(
            flagSample.expected,
          );
        });
        it('treats an empty env var as unset', () => {
          expect(valueOf(o, {}, { [env]: '' })).to.deep.equal(valueOf(o, {}));
        });
      }

      it('applies the default when neither is given', () => {
        if (isConnection(o)) expect(parse({}).config.databaseUrl).to.equal(undefined);
        else expect(valueOf(o, {})).to.deep.equal(o.default);
      });

      it('refuses a bad value, naming the flag and the env var', () => {
        const bad = badValue(o);
        const names = [`--${o.flag}`, ...(o.env ? [o.env] : []), 'expected'];
        if (o.type.kind === 'flag') {
          expectBootError(() => parse({}, { [o.env as string]: bad }), ...names);
          return;
        }
        const err = expectBootError(() => parse({ ...(isConnection(o) ? CONNECTION_BASE : {}), [o.flag]: bad }), ...names);
        if (o.secret && bad !== '') expect(err.message).not.to.include(bad);
        if (o.env && bad !== '') expectBootError(() => parse({}, { [o.env as string]: bad }), ...names);
      });

      if (o.deprecated) {
        it('warns, naming the option and its replacement, only when set', () => {
          const raw = o.type.kind === 'flag' ? true : a.raw;
          const { warnings } = parse({ [o.flag]: raw });
          expect(warnings.join('\n')).to.include(`--${o.flag}`).and.include(o.deprecated?.replacement ?? '');
          expect(parse({}).warnings).to.deep.equal([]);
        });
      }
    });
  }
});

describe('server options: targeted cases', () => {
  it('composes the database URL from the flag-only connection options', () => {
    const url = composeDatabaseUrl({
      host: 'db.example.com',
      port: 5433,
      user: 'app user',
      password: 'p@ss:w/rd?',
      dbname: 'my db',
      options: '-c extra_float_digits=3',
    });
    expect(url).to.equal(
      'postgres://app%20user:p%40ss%3Aw%2Frd%3F@db.example.com:5433/my%20db?options=-c%20extra_float_digits%3D3',
    );
    expect(composeDatabaseUrl({ host: '/var/run/postgresql', dbname: 'app', port: 5432 })).to.equal(
      'postgres:///app?host=%2Fvar%2Frun%2Fpostgresql&port=5432',
    );
    const { config } = parse({ host: 'h', port: '6543', user: 'u', password: 'p', dbname: 'd' });
    expect(config.databaseUrl).to.equal('postgres://u:p@h:6543/d');
  });

  it('requires --host and --dbname to compose a URL', () => {
    expectBootError(() => parse({ user: 'u' }), '--host');
    expectBootError(() => parse({ host: 'h' }), '--dbname');
  });

  it('adds --pg-connection-options to a given URL, and lets connection flags beat the env URL', () => {
    const withOpts = parse({ 'database-url': 'postgres://a@b/c', 'pg-connection-options': '-c x=1' });
    expect(withOpts.config.databaseUrl).to.equal('postgres://a@b/c?options=-c%20x%3D1');
    const composed = parse({ host: 'h', dbname: 'd' }, { SVC_GRAPHQL_DATABASE_URL: 'postgres://env@e/f' });
    expect(composed.config.databaseUrl).to.equal('postgres://h/d');
    expect(composed.warnings.join()).to.include('SVC_GRAPHQL_DATABASE_URL');
    const flagUrl = parse({ 'database-url': 'postgres://a@b/c', host: 'h', dbname: 'd' });
    expect(flagUrl.config.databaseUrl).to.equal('postgres://a@b/c');
    expect(flagUrl.warnings.join()).to.include('--host');
  });

  it('warns about deprecated options, naming what replaces them', () => {
    const { config, warnings } = parse({ connections: '20' }, { SVC_GRAPHQL_TX_ISOLATION: 'serializable' });
    expect(config.pgConnections).to.equal(20);
    expect(config.txIsolation).to.equal('serializable');
    expect(warnings).to.have.length(2);
    expect(warnings[0]).to.include('--connections (SVC_GRAPHQL_PG_CONNECTIONS) is deprecated').and.include('max_connections');
    expect(warnings[1]).to.include('--tx-iso').and.include('isolation_level');
  });

  it('refuses --enabled-apis metadata,bogus', () => {
    const err = expectBootError(() => parse({ 'enabled-apis': 'metadata,bogus' }), '--enabled-apis', 'SVC_GRAPHQL_ENABLED_APIS');
    expect(err.message).to.include('"bogus" is not allowed').and.include('metadata, graphql, pgdump, config');
    expect(parse({ 'enabled-apis': 'Metadata, graphql,metadata' }).config.enabledApis).to.deep.equal(['metadata', 'graphql']);
  });

  it('refuses a --jwt-secret that is not a JSON object, without echoing it', () => {
    for (const bad of ['{"type":"HS256",', '["a"]', '"str"', 'null']) {
      const err = expectBootError(() => parse({ 'jwt-secret': bad }), '--jwt-secret', 'SVC_GRAPHQL_JWT_SECRET', 'JSON object');
      expect(err.message).not.to.include(bad);
    }
  });

  it('accepts wildcard CORS origins and refuses malformed ones', () => {
    const ok = parse({ 'cors-domain': 'https://*.example.com, http://localhost:3000,http://[::1]:8080' });
    expect(ok.config.corsDomain).to.deep.equal(['https://*.example.com', 'http://localhost:3000', 'http://[::1]:8080']);
    for (const bad of ['example.com', 'https://*.*.example.com', 'https://exa mple.com', 'http://localhost:99999', '*, https://a.com', 'https://a.com/path']) {
      expectBootError(() => parse({ 'cors-domain': bad }), '--cors-domain', 'SVC_GRAPHQL_CORS_DOMAIN');
    }
  });

  it('reads booleans in every accepted spelling', () => {
    for (const [raw, v] of [['TRUE', true], ['t', true], ['Yes', true], ['y', true], ['1', true], ['False', false], ['F', false], ['no', false], ['N', false], ['0', false]] as const) {
      expect(parse({}, { SVC_GRAPHQL_ENABLE_CONSOLE: raw }).config.enableConsole, raw).to.equal(v);
    }
  });

  it('checks integer bounds and rejects unknown flags', () => {
    expectBootError(() => parse({ 'query-plan-cache-size': '65536' }), 'between 0 and 65535');
    expect(parse({ 'query-plan-cache-size': '0' }).config.queryPlanCacheSize).to.equal(0);
    expectBootError(() => parse({ connections: '0' }), 'at least 1');
    expectBootError(() => parse({ serverPort: '80' }), 'unknown option --serverPort');
  });
});

describe('command line', () => {
  interface Run {
    out: string;
    err: string;
    exitCode: number | undefined;
  }
  async function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
    const r: Run = { out: '', err: '', exitCode: undefined };
    await runCli(['node', 'svc-graphql-engine', ...args], env, {
      writeOut: (s) => void (r.out += s),
      writeErr: (s) => void (r.err += s),
      exit: (code) => void (r.exitCode = code),
    });
    return r;
  }

  it('`version` prints the version', async () => {
    const r = await run(['version']);
    expect(r.out.trim()).to.equal(`svc-graphql-engine: ${ENGINE_VERSION}`);
    expect(r.exitCode).to.equal(undefined);
  });

  it('`--help` and `serve --help` mention every option and env var', async () => {
    for (const args of [['--help'], ['serve', '--help']]) {
      const r = await run(args);
      const text = r.out.replace(/\s+/g, ' ');
      for (const o of OPTIONS) {
        expect(text, args.join(' ')).to.include(`--${o.flag}`);
        if (o.env) expect(text, args.join(' ')).to.include(o.env);
      }
      expect(text).to.include('[default: 8080]');
    }
  });

  it('prints just the message of a bad option and exits with 1', async () => {
    const r = await run(['serve', '--server-port', 'abc']);
    expect(r.exitCode).to.equal(1);
    expect(r.err.trim()).to.equal(
      'E_OPTION_INVALID: invalid value "abc" for --server-port (SVC_GRAPHQL_SERVER_PORT): expected a port number between 1 and 65535',
    );
  });

  it('reads env vars, and server flags after `serve`', async () => {
    const fromEnv = await run(['serve'], { SVC_GRAPHQL_LOG_LEVEL: 'loud' });
    expect(fromEnv.exitCode).to.equal(1);
    expect(fromEnv.err).to.include('SVC_GRAPHQL_LOG_LEVEL');
    const after = await run(['serve', '--database-url', 'mysql://x']);
    expect(after.exitCode).to.equal(1);
    expect(after.err).to.include('--database-url (SVC_GRAPHQL_DATABASE_URL)');
  });

  it('refuses a serve option before `serve`, saying where it belongs', async () => {
    const r = await run(['--server-port', '9000', 'serve']);
    expect(r.exitCode).to.equal(1);
    expect(r.err).to.include("unknown option '--server-port'").and.include('after `serve`');
  });

  it('passes flags before and after `serve`, short flags and bare booleans to the parser', async () => {
    const program = buildProgram({ env: {}, output: { writeOut: () => {}, writeErr: () => {} } });
    let flags: Record<string, string | boolean | undefined> = {};
    const serveCmd = program.commands.find((c) => c.name() === 'serve') as Command;
    serveCmd.action((_o: unknown, cmd: Command) => void (flags = commandFlags(cmd)));
    await program.parseAsync(
      ['--data-dir', '/tmp/d', 'serve', '-c', '5', '-i', 'serializable', '--enable-console', '--dev-mode',
        '--use-prepared-statements', 'false', '--host', 'h', '--dbname', 'd'],
      { from: 'user' },
    );
    expect(flags).to.deep.equal({
      'data-dir': '/tmp/d', connections: '5', 'tx-iso': 'serializable', 'enable-console': true, 'dev-mode': true,
      'use-prepared-statements': 'false', host: 'h', dbname: 'd',
    });
    const { config } = parseServerConfig({ flags, env: {} });
    expect(config).to.include({ dataDir: '/tmp/d', pgConnections: 5, enableConsole: true, usePreparedStatements: false });
    expect(config.databaseUrl).to.equal('postgres://h/d');
  });

  it('the entry point runs (`core/main.ts version`; test/integration/build.test.ts runs the compiled one)', () => {
    const out = execFileSync(process.execPath, [...SOURCE_ENTRY, 'version'], { encoding: 'utf8', cwd: REPO_ROOT });
    expect(out.trim()).to.equal(`svc-graphql-engine: ${ENGINE_VERSION}`);
  });
});

describe('docs/configuration.md', () => {
  it('is what test/unit/config/render-config-doc.ts renders (run it after changing the table)', () => {
    expect(readFileSync(CONFIG_DOC_PATH, 'utf8')).to.equal(renderConfigDoc());
  });
});
