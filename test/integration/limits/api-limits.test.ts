/**
 * API limits end to end: set/remove with their argument errors, each limit refusing an
 * over-limit operation with its code and letting others through, per role and global, `disabled`,
 * admin exempt; the time limit cancelling the running SQL; rate limits holding across two engine
 * instances that share Redis, and two that share only the metadata database; introspection
 * control; and everything surviving export/replace.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import type { Engine } from '../../../core/engine.js';
import { TIME_LIMIT_EXCEEDED_MESSAGE } from '../../../core/sdk/index.js';
import { call, graphql, metadata, startTestEngine } from '../../helpers/engine.js';
import type { ReadApiFixture } from '../read-api/fixture.js';
import { USER, EDITOR, eventually, startLimitsFixture } from './fixture.js';

const SLOW_FUNCTION = `
CREATE FUNCTION slow_authors(seconds float8) RETURNS SETOF author LANGUAGE sql STABLE AS
$$ SELECT a.* FROM author a, pg_sleep(seconds) $$;`;

const DEEP = '{ author(limit: 1) { articles { comments { article { id } } } } }'; // depth 4, 4 nodes
const SHALLOW = '{ author(limit: 1) { id name } }'; // depth 1, 1 node

const errorOf = (res: { body: { errors?: Array<{ message: string; extensions: { code: string } }> } }) => res.body.errors?.[0];

describe('API limits', function () {
  this.timeout(90000);
  let f: ReadApiFixture;
  before(async () => {
    f = await startLimitsFixture('api_limits');
    await f.db.sql(SLOW_FUNCTION);
    const tracked = await metadata(f.engine, {
      type: 'bulk',
      args: [
        { type: 'pg_track_function', args: { function: 'slow_authors' } },
        { type: 'pg_create_select_permission', args: { table: 'comment', role: 'user', permission: { columns: ['id'], filter: {} } } },
        { type: 'pg_create_object_relationship', args: { table: 'comment', name: 'article2', using: { foreign_key_constraint_on: 'article_id' } } },
      ],
    });
    expect(tracked.status, JSON.stringify(tracked.body)).to.equal(200);
  });
  after(() => f?.close());

  const setLimits = async (args: unknown) => {
    const res = await metadata(f.engine, { type: 'set_api_limits', args });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  };

  it('checks set_api_limits args with the reference errors', async () => {
    const bad = async (args: unknown) => (await metadata(f.engine, { type: 'set_api_limits', args })).body;
    expect(await bad({ depth_limit: { per_role: {} } })).to.deep.equal({ path: '$.args.depth_limit', error: 'key "global" not found', code: 'parse-failed' });
    expect((await bad({ node_limit: { global: -1 } })).path).to.equal('$.args.node_limit.global');
    expect(await bad({ rate_limit: { global: { max_reqs_per_min: 1, unique_params: 'host' } } })).to.deep.include({
      error: "Not a valid value. Should be either: 'IP' or a list of Svc session variables",
      code: 'parse-failed',
    });
    expect((await bad({ rate_limit: { global: { max_reqs_per_min: 1, unique_params: ['x-svc-role'] } } })).code).to.equal('parse-failed');
    expect((await bad({ depth_limits: { global: 1 } })).code).to.equal('parse-failed');
    expect((await metadata(f.engine, { type: 'export_metadata', args: {} })).body.api_limits).to.equal(undefined);
  });

  it('depth and node limits refuse deeper / larger operations, per role, admin exempt', async () => {
    await setLimits({ depth_limit: { global: 3, per_role: { editor: 10 } }, node_limit: { global: 10, per_role: { editor: 1 } } });
    const deep = await graphql(f.engine, DEEP, undefined, USER);
    expect(errorOf(deep)).to.deep.equal({
      extensions: { path: '$', code: 'depth-limit-exceeded' },
      message: 'depth limit exceeded: the operation is nested 4 levels deep, more than the limit of 3',
    });
    expect((await graphql(f.engine, SHALLOW, undefined, USER)).body.data.author).to.have.length(1);
    // Fragments add no level; introspection is exempt.
    const viaFragment = await graphql(f.engine, '{ author(limit: 1) { ...A } } fragment A on author { articles { ... on article { id } } }', undefined, USER);
    expect(viaFragment.body.data).to.be.an('object');
    expect((await graphql(f.engine, '{ __schema { types { name fields { name type { name ofType { name } } } } } }', undefined, USER)).body.data).to.be.an('object');
    // editor: depth 10 but only one node.
    const editorDeep = await graphql(f.engine, '{ author(limit: 1) { id } a2: author(limit: 1) { id } }', undefined, EDITOR);
    expect(errorOf(editorDeep)?.extensions.code).to.equal('node-limit-exceeded');
    expect(errorOf(editorDeep)?.message).to.equal('node limit exceeded: the operation has 2 nodes, more than the limit of 1');
    expect((await graphql(f.engine, DEEP)).body.data).to.be.an('object');
  });

  it('`disabled` turns every limit off; remove_api_limits removes them', async () => {
    await setLimits({ disabled: true, depth_limit: { global: 1 } });
    expect((await graphql(f.engine, DEEP, undefined, USER)).body.data).to.be.an('object');
    expect((await metadata(f.engine, { type: 'export_metadata', args: {} })).body.api_limits).to.deep.equal({ disabled: true, depth_limit: { global: 1 } });
    expect((await metadata(f.engine, { type: 'remove_api_limits', args: {} })).status).to.equal(200);
    expect((await metadata(f.engine, { type: 'export_metadata', args: {} })).body.api_limits).to.equal(undefined);
  });

  it('the batch limit refuses every operation of a larger batch, on /v1/graphql', async () => {
    await setLimits({ batch_limit: { global: 2 } });
    const two = await call(f.engine, '/v1/graphql', [{ query: SHALLOW }, { query: SHALLOW }], USER);
    expect(two.body.map((r: { data?: unknown }) => r.data !== undefined)).to.deep.equal([true, true]);
    const three = await call(f.engine, '/v1/graphql', [{ query: SHALLOW }, { query: SHALLOW }, { query: SHALLOW }], USER);
    expect(three.body.map((r: { errors?: Array<{ extensions: { code: string } }> }) => r.errors?.[0]?.extensions.code)).to.deep.equal([
      'batch-limit-exceeded',
      'batch-limit-exceeded',
      'batch-limit-exceeded',
    ]);
    await metadata(f.engine, { type: 'remove_api_limits', args: {} });
  });

  it('the time limit cancels the running SQL in the database', async () => {
    await setLimits({ time_limit: { global: 0.5 } });
    const started = Date.now();
    const res = await graphql(f.engine, '{ slow_authors(args: {seconds: 30}) { id } }', undefined, USER);
    const took = Date.now() - started;
    expect(errorOf(res)?.extensions.code, JSON.stringify(res.body)).to.equal('time-limit-exceeded');
    // The words every database kind gives (core/db/time-limit.ts).
    expect(errorOf(res)?.message).to.equal(TIME_LIMIT_EXCEEDED_MESSAGE);
    expect(took).to.be.below(10000);
    // The statement is gone from the database, not merely abandoned by the engine.
    await eventually(async () => {
      const { rows } = await f.db.sql(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%pg_sleep%' AND state = 'active' AND pid <> pg_backend_pid()`);
      return rows[0].n === 0 ? true : undefined;
    }, 5000, 'the slow statement to be cancelled');
    // Quick operations still run; admin has no limit.
    expect((await graphql(f.engine, '{ slow_authors(args: {seconds: 0}) { id } }', undefined, USER)).body.data.slow_authors).to.have.length(5);
    expect((await graphql(f.engine, '{ slow_authors(args: {seconds: 0.8}) { id } }')).body.data.slow_authors).to.have.length(5);
    await metadata(f.engine, { type: 'remove_api_limits', args: {} });
  });

  it('the time limit rolls a mutation back', async () => {
    await f.db.sql(`CREATE FUNCTION slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(30); RETURN NEW; END $$;
      CREATE TRIGGER slow BEFORE INSERT ON comment FOR EACH ROW WHEN (NEW.body = 'slow') EXECUTE FUNCTION slow_insert();`);
    await setLimits({ time_limit: { global: 0.5, per_role: { user: 0.5 } } });
    await metadata(f.engine, { type: 'pg_create_insert_permission', args: { table: 'comment', role: 'user', permission: { columns: ['article_id', 'body'], check: {} } } });
    const res = await graphql(f.engine, 'mutation { insert_comment_one(object: {article_id: 1, body: "slow"}) { id } }', undefined, USER);
    expect(errorOf(res)?.extensions.code, JSON.stringify(res.body)).to.equal('time-limit-exceeded');
    const { rows } = await f.db.sql(`SELECT count(*)::int AS n FROM comment WHERE body = 'slow'`);
    expect(rows[0].n).to.equal(0);
    await metadata(f.engine, { type: 'remove_api_limits', args: {} });
  });

  it('round-trips limits and introspection options through export and replace', async () => {
    const limits = {
      disabled: false,
      depth_limit: { global: 5, per_role: { user: 3 } },
      rate_limit: { global: { max_reqs_per_min: 100, unique_params: 'IP' }, per_role: { user: { max_reqs_per_min: 10, unique_params: ['x-svc-user-id'] } } },
    };
    await setLimits(limits);
    await metadata(f.engine, { type: 'set_graphql_schema_introspection_options', args: { disabled_for_roles: ['user'] } });
    const exported = (await metadata(f.engine, { type: 'export_metadata', args: {} })).body;
    expect(exported.api_limits).to.deep.equal(limits);
    expect(exported.graphql_schema_introspection).to.deep.equal({ disabled_for_roles: ['user'] });
    await metadata(f.engine, { type: 'remove_api_limits', args: {} });
    await metadata(f.engine, { type: 'set_graphql_schema_introspection_options', args: { disabled_for_roles: [] } });
    expect((await metadata(f.engine, { type: 'replace_metadata', args: exported })).status).to.equal(200);
    expect((await metadata(f.engine, { type: 'export_metadata', args: {} })).body).to.deep.equal(exported);
    await metadata(f.engine, { type: 'remove_api_limits', args: {} });
  });

  it('introspection control hides __schema and __type from listed roles only', async () => {
    await metadata(f.engine, { type: 'set_graphql_schema_introspection_options', args: { disabled_for_roles: ['user'] } });
    const refused = await graphql(f.engine, '{ __schema { queryType { name } } }', undefined, USER);
    expect(refused.body).to.deep.equal({
      errors: [{ extensions: { path: '$.selectionSet.__schema', code: 'validation-failed' }, message: "field '__schema' not found in type: 'query_root'" }],
    });
    expect(errorOf(await graphql(f.engine, 'query { ... on query_root { __type(name: "author") { name } } }', undefined, USER))?.message).to.contain('__type');
    expect((await graphql(f.engine, '{ __typename author(limit: 1) { id } }', undefined, USER)).body.data.__typename).to.equal('query_root');
    expect((await graphql(f.engine, '{ __schema { queryType { name } } }', undefined, EDITOR)).body.data.__schema.queryType.name).to.equal('query_root');
    await metadata(f.engine, { type: 'set_graphql_schema_introspection_options', args: { disabled_for_roles: [] } });
    expect((await graphql(f.engine, '{ __schema { queryType { name } } }', undefined, USER)).body.data).to.be.an('object');
  });
});

describe('rate limits across engine instances', function () {
  this.timeout(90000);
  let f: ReadApiFixture;
  let second: Engine | undefined;
  before(async () => {
    f = await startLimitsFixture('rate_limits');
  });
  afterEach(async () => {
    await second?.close();
    second = undefined;
  });
  after(() => f?.close());

  /** A role no earlier run has counted (Redis keeps counters for a minute). */
  const freshRole = async () => {
    const role = `rl_${randomBytes(4).toString('hex')}`;
    const res = await metadata(f.engine, { type: 'pg_create_select_permission', args: { table: 'author', role, permission: { columns: ['id'], filter: {} } } });
    expect(res.status).to.equal(200);
    return role;
  };

  async function holdsAcross(engines: Array<{ url: string }>, role: string, max: number): Promise<void> {
    const outcomes: string[] = [];
    for (let i = 0; i < max + 2; i++) {
      const res = await graphql(engines[i % engines.length]!, '{ author(limit: 1) { id } }', undefined, { 'x-svc-role': role });
      outcomes.push(res.body.data ? 'ok' : res.body.errors[0].extensions.code);
    }
    expect(outcomes).to.deep.equal([...Array(max).fill('ok'), 'rate-limit-exceeded', 'rate-limit-exceeded']);
  }

  it('holds across two engines sharing Redis', async () => {
    const role = await freshRole();
    await metadata(f.engine, { type: 'set_api_limits', args: { rate_limit: { global: { max_reqs_per_min: 1000 }, per_role: { [role]: { max_reqs_per_min: 3 } } } } });
    // Both engines read the same metadata; the first one restarts with Redis too.
    const redisUrl = 'redis://127.0.0.1:6379/0';
    const a = await startTestEngine({ databaseUrl: f.db.url, redisUrl });
    second = await startTestEngine({ databaseUrl: f.db.url, redisUrl });
    try {
      await holdsAcross([a, second], role, 3);
      const refused = await graphql(a, '{ author(limit: 1) { id } }', undefined, { 'x-svc-role': role });
      expect(errorOf(refused)?.message).to.equal('rate limit exceeded: more than 3 requests per minute');
      const alpha = await call(a, '/v1alpha1/graphql', { query: '{ author(limit: 1) { id } }' }, { 'x-svc-role': role });
      expect(alpha.status).to.equal(429);
    } finally {
      await a.close();
    }
  });

  /**
   * Above 40 a minute the engines draw from local leases (plugins/limits/rate/leases.ts): together
   * they admit at most the limit plus each one's cap (5% of it), and the store sees one
   * reservation per lease, not one per operation.
   */
  async function leasedAcross(engines: Array<{ url: string }>, role: string, max: number): Promise<number> {
    let ok = 0;
    let refused = 0;
    for (let round = 0; round < 12; round++) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => graphql(engines[i % engines.length]!, '{ author(limit: 1) { id } }', undefined, { 'x-svc-role': role })),
      );
      for (const res of answers) {
        if (res.body.data) ok++;
        else if (res.body.errors[0].extensions.code === 'rate-limit-exceeded') refused++;
        else throw new Error(JSON.stringify(res.body));
      }
    }
    const slack = engines.length * Math.floor(max / 20);
    expect(ok).to.be.within(max - slack, max + slack);
    expect(refused).to.equal(240 - ok);
    return ok;
  }

  it('a higher limit is leased: two engines sharing Redis stay within limit + slack, few reservations', async () => {
    const role = await freshRole();
    await metadata(f.engine, { type: 'set_api_limits', args: { rate_limit: { global: { max_reqs_per_min: 200 } } } });
    const redisUrl = 'redis://127.0.0.1:6379/0';
    const a = await startTestEngine({ databaseUrl: f.db.url, redisUrl });
    second = await startTestEngine({ databaseUrl: f.db.url, redisUrl });
    const redis = new Redis(redisUrl);
    try {
      const ok = await leasedAcross([a, second], role, 200);
      const reservations = await redis.zcard(`svc:lease:${JSON.stringify([role])}`);
      expect(reservations).to.be.above(0).and.below(ok / 3);
    } finally {
      redis.disconnect();
      await a.close();
      await metadata(f.engine, { type: 'remove_api_limits', args: {} });
    }
  });

  it('a higher limit is leased: two engines sharing the metadata database stay within limit + slack, few reservations', async () => {
    const role = await freshRole();
    await metadata(f.engine, { type: 'set_api_limits', args: { rate_limit: { global: { max_reqs_per_min: 200 } } } });
    second = await startTestEngine({ databaseUrl: f.db.url });
    try {
      const ok = await leasedAcross([f.engine, second], role, 200);
      const { rows } = await f.db.sql('SELECT cardinality(at) AS reservations FROM svc_catalog.svc_rate_lease WHERE key = $1', [`svc:lease:${JSON.stringify([role])}`]);
      expect(rows[0].reservations).to.be.above(0).and.below(ok / 3);
    } finally {
      await metadata(f.engine, { type: 'remove_api_limits', args: {} });
    }
  });

  it('holds across two engines sharing only the metadata database, and counts unique params apart', async () => {
    const role = await freshRole();
    await metadata(f.engine, {
      type: 'set_api_limits',
      args: { rate_limit: { global: { max_reqs_per_min: 2, unique_params: ['x-svc-user-id'] } } },
    });
    second = await startTestEngine({ databaseUrl: f.db.url });
    const as = (user: string) => ({ 'x-svc-role': role, 'x-svc-user-id': user });
    const outcomes: string[] = [];
    for (const [engine, user] of [[f.engine, '1'], [second, '1'], [second, '2'], [f.engine, '1'], [f.engine, '2'], [second, '2']] as const) {
      const res = await graphql(engine, '{ author(limit: 1) { id } }', undefined, as(user));
      outcomes.push(res.body.data ? 'ok' : res.body.errors[0].extensions.code);
    }
    expect(outcomes).to.deep.equal(['ok', 'ok', 'ok', 'rate-limit-exceeded', 'ok', 'rate-limit-exceeded']);
    // Admin is never limited.
    for (let i = 0; i < 3; i++) expect((await graphql(second, '{ author(limit: 1) { id } }')).body.data).to.be.an('object');
    await metadata(f.engine, { type: 'remove_api_limits', args: {} });
  });
});
