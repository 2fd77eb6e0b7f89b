/**
 * The `wh_` kind in an engine, with the real @google-cloud/bigquery client against the REST
 * stand-in: its operations and their errors, read-only schema, explain, errors and retries,
 * round trips of its metadata, `global_select_limit`, and that it reaches the engine through the
 * SDK alone.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TIME_LIMIT_EXCEEDED_MESSAGE } from '../../../../core/sdk/index.js';
import { call, graphql } from '../../../helpers/engine.js';
import { DATASET } from './fixture.js';
import { ADMIN, type Body, type Harness, SOURCE, startHarness, trackFixture } from './harness.js';
import { BOOL, INT, list, rec, rootAnswer } from './rows.js';

const table = (name: string) => ({ dataset: DATASET, name });

describe('db/bigquery: the kind in an engine (stand-in)', function () {
  this.timeout(60000);
  let h: Harness;
  const gql = async (query: string, variables?: Record<string, unknown>, headers: Record<string, string> = ADMIN): Promise<Body> =>
    (await graphql(h.engine, query, variables, headers)).body as Body;

  before(async () => {
    h = await startHarness('bigquery_plugin');
    await trackFixture(h);
  });
  after(async () => h?.close());

  it('imports nothing of the engine but the SDK', () => {
    const dir = join(process.cwd(), 'plugins/db/bigquery');
    const files = [...readdirSync(dir).map((f) => join(dir, f)), ...readdirSync(join(dir, 'sql')).map((f) => join(dir, 'sql', f))].filter((f) => f.endsWith('.ts'));
    for (const f of files) {
      for (const m of readFileSync(f, 'utf8').matchAll(/from '([^']+)'/g)) {
        const spec = m[1]!;
        if (spec.startsWith('.')) expect(spec.includes('core/') ? spec.endsWith('core/sdk/index.js') : true, `${f}: ${spec}`).to.equal(true);
      }
    }
  });

  it('signs every request with the service account key', () => {
    expect(h.bq.queries.length).to.be.greaterThan(0);
    expect(h.bq.unauthenticated).to.deep.equal([]);
  });

  it('names root fields <dataset>_<table> and has no mutations (read-only, as the reference)', async () => {
    const body = await gql('{ __schema { queryType { fields { name } } mutationType { name } } }');
    const names = (body.data!['__schema'] as { queryType: { fields: Array<{ name: string }> } }).queryType.fields.map((f) => f.name);
    expect(names).to.include.members(['conf_article', 'conf_article_aggregate', 'conf_article_by_pk', 'conf_author']);
    expect((await gql('mutation { delete_conf_article(where: {}) { affected_rows } }')).errors![0]!.extensions!.code).to.equal('validation-failed');
    expect((await gql('{ conf_article(distinct_on: [id]) { id } }')).errors![0]!.extensions!.code).to.equal('validation-failed');
  });

  it('has no operations for what it does not declare', async () => {
    const undeclared = ['wh_run_sql', 'wh_track_function', 'wh_set_table_is_enum', 'wh_create_event_trigger', 'wh_create_remote_relationship'];
    // Read-only: no permission a mutation would be held to can be set.
    const writes = ['wh_create_insert_permission', 'wh_create_update_permission', 'wh_create_delete_permission'];
    for (const type of [...undeclared, ...writes]) {
      const res = await h.meta({ type, args: { source: SOURCE, table: table('article'), sql: 'SELECT 1' } });
      expect(res.status, type).to.equal(400);
    }
  });

  it('refuses a bad configuration with parse-failed at its path, adding nothing', async () => {
    const res = await h.meta({ type: 'wh_add_source', args: { name: 'bad', configuration: { service_account: h.bq.serviceAccount, project_id: 'p', datasets: ['d'], location: 'EU' } } });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.include({ code: 'parse-failed', path: '$.args.configuration.location' });
    const exported = await h.meta({ type: 'export_metadata', args: {} });
    expect((exported.body['sources'] as Array<{ name: string }>).map((s) => s.name)).to.deep.equal(['default', SOURCE]);
  });

  it('customizes, federates, untracks and tracks again its tables', async () => {
    await h.ok({ type: 'wh_set_table_customization', args: { source: SOURCE, table: table('author'), configuration: { custom_root_fields: { select: 'writers' } } } });
    h.answer(() => rootAnswer(list(rec(INT)), [[1]]));
    expect((await gql('{ writers(limit: 1) { id } }')).data).to.deep.equal({ writers: [{ id: 1 }] });
    await h.ok({ type: 'wh_set_table_customization', args: { source: SOURCE, table: table('author'), configuration: {} } });
    await h.ok({ type: 'wh_set_gateway_federation_config', args: { source: SOURCE, table: table('author'), gateway_federation_config: null } });
    await h.ok({ type: 'wh_update_source', args: { name: SOURCE, customization: { type_names: { prefix: 'bq_' } } } });
    h.answer(() => rootAnswer(list(rec(BOOL)), [[true]]));
    expect((await gql('{ conf_author(limit: 1) { __typename } }')).data).to.deep.equal({ conf_author: [{ __typename: 'bq_conf_author' }] });
    // A type name is a constant of the response: BigQuery gets a placeholder column, never the name.
    expect(h.bq.queries.at(-1)!.query).to.equal('SELECT ARRAY(SELECT AS STRUCT TRUE AS `_` FROM `conf`.`author` AS `_t0` LIMIT 1) AS `root`');
    await h.ok({ type: 'wh_update_source', args: { name: SOURCE, customization: {} } });
    // Untracking a table others depend on needs cascade; tracked again, its dependents are made anew.
    const untrack = await h.meta({ type: 'wh_untrack_table', args: { source: SOURCE, table: table('author') } });
    expect(untrack.status).to.equal(400);
    await h.ok({ type: 'wh_untrack_table', args: { source: SOURCE, table: table('author'), cascade: true } });
    expect((await gql('{ conf_author { id } }')).errors![0]!.extensions!.code).to.equal('validation-failed');
    await h.ok({ type: 'wh_track_table', args: { source: SOURCE, table: table('author') } });
    await h.ok({ type: 'wh_create_object_relationship', args: { source: SOURCE, table: table('article'), name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
    await h.ok({ type: 'wh_create_array_relationship', args: { source: SOURCE, table: table('author'), name: 'articles', using: { foreign_key_constraint_on: { table: table('article'), column: 'author_id' } } } });
    await h.ok({ type: 'wh_create_select_permission', args: { source: SOURCE, table: table('author'), role: 'user', permission: { columns: ['id', 'name'], filter: {} } } });
    await h.ok({
      type: 'wh_create_object_relationship',
      args: { source: SOURCE, table: table('article'), name: 'writer', using: { manual_configuration: { remote_table: table('author'), column_mapping: { author_id: 'id' } } } },
    });
    const missing = await h.meta({ type: 'wh_track_table', args: { source: SOURCE, table: table('nope') } });
    expect(missing.status).to.equal(400);
    const injected = await h.meta({ type: 'wh_track_table', args: { source: SOURCE, table: table('article`; DROP TABLE article; --') } });
    expect(injected.status).to.equal(400);
    const wrongKind = await h.meta({ type: 'wh_track_table', args: { source: 'default', table: table('article') } });
    expect(wrongKind.body).to.deep.include({ code: 'not-exists' });
  });

  it('renames, comments and drops relationships', async () => {
    await h.ok({ type: 'wh_rename_relationship', args: { source: SOURCE, table: table('article'), name: 'writer', new_name: 'penned_by' } });
    await h.ok({ type: 'wh_set_relationship_comment', args: { source: SOURCE, table: table('article'), relationship: 'penned_by', comment: 'the same author' } });
    await h.ok({ type: 'wh_drop_relationship', args: { source: SOURCE, table: table('article'), relationship: 'penned_by' } });
    await h.ok({
      type: 'wh_create_object_relationship',
      args: { source: SOURCE, table: table('article'), name: 'writer', using: { manual_configuration: { remote_table: table('author'), column_mapping: { author_id: 'id' } } } },
    });
    const clash = await h.meta({ type: 'wh_create_object_relationship', args: { source: SOURCE, table: table('article'), name: 'title', using: { foreign_key_constraint_on: 'author_id' } } });
    expect(clash.status).to.equal(400);
  });

  it('explains a query: its SQL with the values written in, and a dry run of it', async () => {
    const res = await call(h.engine, '/v1/graphql/explain', { query: { query: 'query ($v: Int) { conf_article(where: {views: {_gt: $v}, title: {_like: "it\'s%"}}) { id } }', variables: { v: 5 } } }, ADMIN);
    expect(res.status).to.equal(200);
    const [entry] = res.body as Array<{ field: string; sql: string; plan: string[] }>;
    expect(entry!.field).to.equal('conf_article');
    expect(entry!.sql).to.include('`_t0`.`views` > 5').and.include("LIKE 'it\\'s%'").and.not.match(/@p\d/);
    expect(entry!.plan).to.deep.equal(['dry run: statementType=SELECT', 'totalBytesProcessed=1024']);
    expect(h.bq.queries.at(-1)).to.deep.include({ dryRun: true, endpoint: 'jobs.insert' });
  });

  it('keeps BigQuery\'s errors from clients, retries what BigQuery marks transient, and waits for running jobs', async () => {
    h.answer(() => ({ error: { status: 400, reason: 'invalidQuery', message: 'Syntax error: secret detail' } }));
    const bad = await gql('{ conf_article { id } }');
    expect(bad.errors![0]!.extensions!.code).to.equal('unexpected');
    expect(JSON.stringify(bad.errors![0]!.message)).to.not.include('secret detail');
    h.answer(() => ({ error: { status: 403, reason: 'accessDenied', message: 'no' } }));
    expect((await gql('{ conf_article { id } }')).errors![0]!.extensions!.code).to.equal('connection-not-established');
    // A transient failure (503 backendError) is retried with the source's retry settings.
    let calls = 0;
    h.answer(() => (++calls === 1 ? { error: { status: 503, reason: 'backendError', message: 'try again' } } : rootAnswer(list(rec(INT)), [[4]])));
    const startedAt = Date.now();
    expect((await gql('{ conf_article(limit: 1) { id } }')).data).to.deep.equal({ conf_article: [{ id: 4 }] });
    expect(calls).to.equal(2);
    expect(Date.now() - startedAt).to.be.greaterThanOrEqual(400);
    h.answer(() => rootAnswer(list(rec(INT)), [[2]]));
    h.bq.pendingPolls = 1;
    expect((await gql('{ conf_article(limit: 1) { id } }')).data).to.deep.equal({ conf_article: [{ id: 2 }] });
  });

  it('stops a read at the role\'s time limit, and gives BigQuery the limit as the job\'s', async () => {
    await h.ok({ type: 'set_api_limits', args: { time_limit: { global: 0.5 } } });
    h.answer(() => ({ hang: true }));
    const startedAt = Date.now();
    const body = await gql('{ conf_article { id } }', undefined, { ...ADMIN, 'x-svc-role': 'user', 'x-svc-user-id': '1' });
    expect(body.errors![0]!.extensions!.code).to.equal('time-limit-exceeded');
    expect(body.errors![0]!.message).to.equal(TIME_LIMIT_EXCEEDED_MESSAGE);
    expect(Date.now() - startedAt).to.be.lessThan(3000);
    const job = h.bq.queries.at(-1)!;
    expect(job.endpoint).to.equal('jobs.insert');
    expect(Number(job.jobTimeoutMs)).to.be.within(1, 500);
    await h.ok({ type: 'remove_api_limits', args: {} });
  });

  it('caps root selects at global_select_limit', async () => {
    await h.ok({
      type: 'wh_update_source',
      args: { name: SOURCE, configuration: { service_account: h.bq.serviceAccount, project_id: 'standin-project', datasets: [DATASET], global_select_limit: 2, retry_limit: 0 } },
    });
    h.answer(() => rootAnswer(list(rec(INT)), [[1], [2]]));
    await gql('{ conf_article(limit: 10) { id } }');
    expect(h.bq.queries.at(-1)!.query).to.match(/ LIMIT 2\) AS `root`$/);
    await gql('{ conf_article { id } }');
    expect(h.bq.queries.at(-1)!.query).to.match(/ LIMIT 2\) AS `root`$/);
  });

  it('round-trips its metadata through export and replace, also in the {dataset, name} form', async () => {
    const exported = (await h.meta({ type: 'export_metadata', args: {} })).body;
    const bq = (exported['sources'] as Array<{ name: string; kind: string; tables: Array<{ table: unknown }> }>).find((s) => s.name === SOURCE)!;
    expect(bq.kind).to.equal('bigquery');
    expect(bq.tables.map((t) => t.table)).to.have.deep.members([table('article'), table('author')]);
    await h.ok({ type: 'replace_metadata', args: exported });
    expect((await h.meta({ type: 'export_metadata', args: {} })).body).to.deep.equal(exported);
    // The engine's common `{schema, name}` form is read for this kind's tables too.
    const schemaForm = structuredClone(exported) as { sources: Array<{ name: string; tables: Array<{ table: { dataset?: string; schema?: string; name: string } }> }> };
    for (const t of schemaForm.sources.find((s) => s.name === SOURCE)!.tables) t.table = { schema: t.table.dataset!, name: t.table.name };
    await h.ok({ type: 'replace_metadata', args: schemaForm });
    expect((await h.meta({ type: 'export_metadata', args: {} })).body).to.deep.equal(exported);
    h.answer(() => rootAnswer(list(rec(INT)), [[1]]));
    expect((await gql('{ conf_article(limit: 1) { id } }')).data).to.deep.equal({ conf_article: [{ id: 1 }] });
    // An insert permission on a read-only source would be ignored: the document is refused instead.
    const withInsert = structuredClone(exported) as { sources: Array<{ name: string; tables: Array<Record<string, unknown>> }> };
    withInsert.sources.find((s) => s.name === SOURCE)!.tables[0]!['insert_permissions'] = [{ role: 'user', permission: { check: {}, columns: ['id'] } }];
    const refused = await h.meta({ type: 'replace_metadata', args: withInsert });
    expect(refused.status).to.equal(400);
    expect(JSON.stringify(refused.body)).to.include('insert_permission').and.include('has no mutations');
    expect((await h.meta({ type: 'export_metadata', args: {} })).body).to.deep.equal(exported);
  });

  it('drops the source and what depends on it', async () => {
    await h.ok({ type: 'wh_drop_source', args: { name: SOURCE } });
    expect((await gql('{ conf_article { id } }')).errors![0]!.extensions!.code).to.equal('validation-failed');
  });
});
