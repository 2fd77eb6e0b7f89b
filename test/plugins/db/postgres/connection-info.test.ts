import { expect } from 'chai';
import { EngineError } from '../../../../core/errors.js';
import {
  PG_SOURCE_DEFAULTS,
  describePgTarget,
  parsePgSourceConfiguration,
  resolvePgSourceConfiguration,
} from '../../../../plugins/db/postgres/connection-info.js';

const CI = '$.args.configuration.connection_info';
const URL_WITH_SECRET = 'postgres://app:s3cr%40t@db.example:5433/shop';

function failure(fn: () => unknown): EngineError {
  try {
    fn();
  } catch (e) {
    expect(e).to.be.instanceOf(EngineError);
    return e as EngineError;
  }
  throw new Error('expected an EngineError');
}

const withCi = (ci: Record<string, unknown>): unknown => ({ connection_info: { database_url: 'postgres://x@h/db', ...ci } });

describe('db/postgres connection-info', () => {
  it('applies the documented defaults to a bare URL', () => {
    const r = resolvePgSourceConfiguration({ connection_info: { database_url: URL_WITH_SECRET } }, {});
    expect(r).to.deep.equal({
      target: { kind: 'url', url: URL_WITH_SECRET },
      pool: {
        maxConnections: 50,
        totalMaxConnections: null,
        idleTimeoutSeconds: 180,
        retries: 1,
        poolTimeoutSeconds: null,
        connectionLifetimeSeconds: 600,
      },
      usePreparedStatements: false,
      isolationLevel: 'read-committed',
      extensionsSchema: 'public',
      // Both spellings, since a driver may echo either.
      secrets: ['s3cr%40t', 's3cr@t'],
      readReplicas: [],
      statementTimeoutSeconds: null,
      jit: false,
    });
  });

  it('takes the statement timeout from the engine defaults (--pg-statement-timeout), for replicas too', () => {
    const r = resolvePgSourceConfiguration(
      { connection_info: { database_url: 'postgres://x@h/db' }, read_replicas: [{ database_url: 'postgres://x@r/db' }] },
      {},
      { defaults: { statementTimeoutSeconds: 7 } },
    );
    expect(r.statementTimeoutSeconds).to.equal(7);
    expect(r.readReplicas[0]!.statementTimeoutSeconds).to.equal(7);
  });

  it('resolves read_replicas like connection_info, their secrets scrubbed too', () => {
    const r = resolvePgSourceConfiguration(
      {
        connection_info: { database_url: 'postgres://x@h/db' },
        read_replicas: [{ database_url: { from_env: 'REPLICA' }, pool_settings: { max_connections: 3 } }],
      },
      { REPLICA: 'postgres://u:replica-pw@r/db' },
    );
    expect(r.readReplicas).to.have.length(1);
    expect(r.readReplicas[0]!.target).to.deep.equal({ kind: 'url', url: 'postgres://u:replica-pw@r/db' });
    expect(r.readReplicas[0]!.pool.maxConnections).to.equal(3);
    expect(r.secrets).to.include('replica-pw');
    const missing = failure(() => resolvePgSourceConfiguration({ connection_info: { database_url: 'postgres://x@h/db' }, read_replicas: [{ database_url: { from_env: 'NOPE' } }] }, {}));
    expect(missing.code).to.equal('invalid-configuration');
    expect(missing.path).to.equal('$.args.configuration.read_replicas[0].database_url');
  });

  it('takes every setting given, and treats null as absent', () => {
    const r = resolvePgSourceConfiguration(
      {
        connection_info: {
          database_url: 'postgres://x@h/db',
          pool_settings: {
            max_connections: 7,
            total_max_connections: 70,
            idle_timeout: 0,
            retries: 3,
            pool_timeout: 5,
            connection_lifetime: 0,
          },
          use_prepared_statements: true,
          isolation_level: 'serializable',
        },
        extensions_schema: 'ext',
      },
      {},
    );
    expect(r.pool).to.deep.equal({
      maxConnections: 7,
      totalMaxConnections: 70,
      idleTimeoutSeconds: 0,
      retries: 3,
      poolTimeoutSeconds: 5,
      connectionLifetimeSeconds: 0,
    });
    expect(r.usePreparedStatements).to.equal(true);
    expect(r.isolationLevel).to.equal('serializable');
    expect(r.extensionsSchema).to.equal('ext');

    const n = resolvePgSourceConfiguration(withCi({ pool_settings: { pool_timeout: null }, isolation_level: null }), {});
    expect(n.pool.poolTimeoutSeconds).to.equal(null);
    expect(n.isolationLevel).to.equal('read-committed');
  });

  it('lets a caller override defaults (e.g. from the deprecated server options) but not explicit settings', () => {
    const r = resolvePgSourceConfiguration(withCi({ pool_settings: { retries: 0 } }), {}, {
      defaults: { ...PG_SOURCE_DEFAULTS, maxConnections: 9, retries: 5, usePreparedStatements: true },
    });
    expect(r.pool.maxConnections).to.equal(9);
    expect(r.pool.retries).to.equal(0);
    expect(r.usePreparedStatements).to.equal(true);
  });

  it('resolves {from_env} from the given environment only', () => {
    const r = resolvePgSourceConfiguration(
      { connection_info: { database_url: { from_env: 'SVC_GRAPHQL_DB' } } },
      { SVC_GRAPHQL_DB: URL_WITH_SECRET },
    );
    expect(r.target).to.deep.equal({ kind: 'url', url: URL_WITH_SECRET });
    expect(r.secrets).to.include('s3cr@t');
    // The unresolved form is what metadata keeps.
    expect(parsePgSourceConfiguration({ connection_info: { database_url: { from_env: 'SVC_GRAPHQL_DB' } } })).to.deep.equal(
      { connection_info: { database_url: { from_env: 'SVC_GRAPHQL_DB' } } },
    );
  });

  it('reports a missing or empty environment variable by name', () => {
    const missing = failure(() =>
      resolvePgSourceConfiguration({ connection_info: { database_url: { from_env: 'NOPE_DB' } } }, {}),
    );
    expect(missing.code).to.equal('invalid-configuration');
    expect(missing.path).to.equal(`${CI}.database_url`);
    expect(missing.message).to.equal('environment variable "NOPE_DB" not set');

    const empty = failure(() =>
      resolvePgSourceConfiguration({ connection_info: { database_url: { from_env: 'E' } } }, { E: '' }),
    );
    expect(empty.code).to.equal('invalid-configuration');
    expect(empty.message).to.contain('"E"');
  });

  it('accepts connection_parameters', () => {
    const r = resolvePgSourceConfiguration(
      {
        connection_info: {
          database_url: {
            connection_parameters: { username: 'app', password: 'pw!', database: 'shop', host: 'db', port: 5433 },
          },
        },
      },
      {},
    );
    expect(r.target).to.deep.equal({
      kind: 'params',
      host: 'db',
      port: 5433,
      user: 'app',
      password: 'pw!',
      database: 'shop',
    });
    expect(r.secrets).to.deep.equal(['pw!']);
    expect(describePgTarget(r.target)).to.equal('postgres://app:***@db:5433/shop');
  });

  it('masks the password when describing a URL target', () => {
    const r = resolvePgSourceConfiguration({ connection_info: { database_url: URL_WITH_SECRET } }, {});
    const d = describePgTarget(r.target);
    expect(d).to.equal('postgres://app:***@db.example:5433/shop');
  });

  const params = { username: 'u', database: 'd', host: 'h', port: 5432 };
  const cases: [string, unknown, string, string | RegExp][] = [
    ['not an object', 'postgres://x', '$.args.configuration', /expected an object, but encountered a string/],
    ['no connection_info', {}, '$.args.configuration', 'key "connection_info" not found'],
    ['unknown top-level key', { connection_info: {}, read_replica: [] }, '$.args.configuration.read_replica', /unexpected key/],
    ['no database_url', { connection_info: {} }, CI, 'key "database_url" not found'],
    ['unknown connection_info key', withCi({ ssl: true }), `${CI}.ssl`, /unexpected key "ssl"/],
    ['database_url a number', { connection_info: { database_url: 5 } }, `${CI}.database_url`, /expected a string or an object/],
    ['database_url empty', { connection_info: { database_url: '' } }, `${CI}.database_url`, /must not be empty/],
    ['database_url unknown object', { connection_info: { database_url: { url: 'x' } } }, `${CI}.database_url`, /from_env/],
    [
      'from_env with extra key',
      { connection_info: { database_url: { from_env: 'A', default: 'x' } } },
      `${CI}.database_url.default`,
      /unexpected key/,
    ],
    ['from_env not a string', { connection_info: { database_url: { from_env: 1 } } }, `${CI}.database_url.from_env`, /non-empty string/],
    [
      'connection_parameters missing host',
      { connection_info: { database_url: { connection_parameters: { ...params, host: undefined } } } },
      `${CI}.database_url.connection_parameters`,
      'key "host" not found',
    ],
    [
      'connection_parameters port a string',
      { connection_info: { database_url: { connection_parameters: { ...params, port: '5432' } } } },
      `${CI}.database_url.connection_parameters.port`,
      /port number/,
    ],
    [
      'connection_parameters unknown key',
      { connection_info: { database_url: { connection_parameters: { ...params, sslmode: 'x' } } } },
      `${CI}.database_url.connection_parameters.sslmode`,
      /unexpected key/,
    ],
    ['pool_settings not an object', withCi({ pool_settings: [] }), `${CI}.pool_settings`, /encountered an array/],
    [
      'max_connections a string',
      withCi({ pool_settings: { max_connections: '10' } }),
      `${CI}.pool_settings.max_connections`,
      'expected a positive integer, but encountered a string',
    ],
    ['max_connections zero', withCi({ pool_settings: { max_connections: 0 } }), `${CI}.pool_settings.max_connections`, /positive integer/],
    ['idle_timeout negative', withCi({ pool_settings: { idle_timeout: -1 } }), `${CI}.pool_settings.idle_timeout`, /non-negative integer/],
    ['retries fractional', withCi({ pool_settings: { retries: 1.5 } }), `${CI}.pool_settings.retries`, /non-integer number 1.5/],
    ['pool_timeout boolean', withCi({ pool_settings: { pool_timeout: true } }), `${CI}.pool_settings.pool_timeout`, /a boolean/],
    ['connection_lifetime object', withCi({ pool_settings: { connection_lifetime: {} } }), `${CI}.pool_settings.connection_lifetime`, /an object/],
    ['unknown pool setting', withCi({ pool_settings: { stripes: 2 } }), `${CI}.pool_settings.stripes`, /unexpected key "stripes"/],
    ['use_prepared_statements a string', withCi({ use_prepared_statements: 'yes' }), `${CI}.use_prepared_statements`, /expected a boolean/],
    ['isolation_level unknown', withCi({ isolation_level: 'read-uncommitted' }), `${CI}.isolation_level`, /read-committed, repeatable-read, serializable/],
    ['isolation_level not a string', withCi({ isolation_level: 3 }), `${CI}.isolation_level`, /expected a string/],
    ['extensions_schema empty', { ...(withCi({}) as object), extensions_schema: '' }, '$.args.configuration.extensions_schema', /non-empty string/],
  ];
  for (const [what, input, path, message] of cases) {
    it(`rejects ${what} with parse-failed at ${path}`, () => {
      const e = failure(() => resolvePgSourceConfiguration(input, {}));
      expect(e.code).to.equal('parse-failed');
      expect(e.status).to.equal(400);
      expect(e.path).to.equal(path);
      if (typeof message === 'string') expect(e.message).to.equal(message);
      else expect(e.message).to.match(message);
    });
  }

  it('never echoes a misplaced string value, which could be a secret', () => {
    const e = failure(() =>
      resolvePgSourceConfiguration(withCi({ pool_settings: { max_connections: 'postgres://u:hunter2@h/d' } }), {}),
    );
    expect(e.message).not.to.contain('hunter2');
  });

  it('uses a caller-given base path', () => {
    const e = failure(() => resolvePgSourceConfiguration({}, {}, { path: '$.metadata.sources[0].configuration' }));
    expect(e.path).to.equal('$.metadata.sources[0].configuration');
  });
});
