/**
 * The `sqlb_` metadata operations through the real engine (metadata API, schema cache, GraphQL),
 * the kind's sources answered by the recording stand-in (recording-driver.ts; no SQL Server runs
 * here): which operations exist for the kind and which do not, their argument errors, the
 * export → replace → export round trip, remote relationships to another source (the join keys
 * compiled into the parent's statement, the target read in one statement), and the explain API.
 */
import { expect } from 'chai';
import { createMssqlPlugin } from '../../../../plugins/db/mssql/index.js';
import adminSecret from '../../../../plugins/auth/admin-secret/index.js';
import management from '../../../../plugins/metadata/management/index.js';
import sources from '../../../../plugins/metadata/sources/index.js';
import tables from '../../../../plugins/metadata/tables/index.js';
import relationships from '../../../../plugins/metadata/relationships/index.js';
import permissions from '../../../../plugins/metadata/permissions/index.js';
import remoteSchemas from '../../../../plugins/metadata/remote-schemas/index.js';
import remoteRelationships from '../../../../plugins/metadata/remote-relationships/index.js';
import functions from '../../../../plugins/metadata/functions/index.js';
import runSql from '../../../../plugins/metadata/run-sql/index.js';
import computedFields from '../../../../plugins/metadata/computed-fields/index.js';
import eventTriggers from '../../../../plugins/trigger/event-triggers/index.js';
import apiMetadata from '../../../../plugins/api/metadata/index.js';
import apiGraphql from '../../../../plugins/api/graphql/index.js';
import { bootTestEngine, type TestEngine } from '../../../helpers/inject.js';
import { RecordingDriver } from './recording-driver.js';

const SECRET = 'sqlb';
const ADMIN = { 'x-svc-admin-secret': SECRET };
const table = (name: string) => ({ schema: 'dbo', name });
const CONFIG = { connection_info: { connection_string: 'Server=127.0.0.1,1;Database=conf;Uid=sa;Pwd=x' } };

type Body = Record<string, unknown> & { code?: string; error?: string; path?: string; message?: string };

describe('db/mssql: sqlb_ metadata operations (sources answered by the recording stand-in)', function () {
  this.timeout(30000);
  let engine: TestEngine;
  let driver: RecordingDriver;

  const meta = async (body: unknown): Promise<{ status: number; body: Body }> => engine.inject<Body>({ url: '/v1/metadata', headers: ADMIN, body });
  const ok = async (body: unknown): Promise<void> => {
    const res = await meta(body);
    expect(res.body, JSON.stringify(body) + JSON.stringify(res.body)).to.deep.include({ message: 'success' });
  };
  const gql = async (query: string): Promise<{ data?: Record<string, unknown>; errors?: Array<{ message: string; extensions?: { code?: string } }> }> =>
    (await engine.inject<{ data?: Record<string, unknown>; errors?: Array<{ message: string; extensions?: { code?: string } }> }>({ url: '/v1/graphql', headers: ADMIN, body: { query } })).body;

  before(async () => {
    driver = new RecordingDriver();
    engine = await bootTestEngine({
      plugins: [createMssqlPlugin(() => driver), adminSecret, management, sources, tables, relationships, permissions, remoteSchemas, remoteRelationships, functions, runSql, computedFields, eventTriggers, apiMetadata, apiGraphql],
      config: { adminSecret: SECRET },
    });
  });
  after(async () => {
    await engine?.dispose();
  });

  it('adds, updates and drops a source, refusing a bad configuration at its path without connecting', async () => {
    const before = driver.statements.length;
    const bad = await meta({ type: 'sqlb_add_source', args: { name: 'bad', configuration: { connection_info: { connection_string: 'x', pool_settings: { retries: 3 } } } } });
    expect(bad.status).to.equal(400);
    expect(bad.body).to.include({ code: 'parse-failed', path: '$.args.configuration.connection_info.pool_settings.retries' });
    expect(driver.statements.length).to.equal(before);
    await ok({ type: 'sqlb_add_source', args: { name: 'conf', configuration: CONFIG } });
    const again = await meta({ type: 'sqlb_add_source', args: { name: 'conf', configuration: CONFIG } });
    expect(again.status).to.equal(400);
    await ok({ type: 'sqlb_update_source', args: { name: 'conf', configuration: { connection_info: { ...CONFIG.connection_info, isolation_level: 'snapshot' } } } });
    await ok({ type: 'sqlb_add_source', args: { name: 'other', configuration: CONFIG } });
    const exported = (await meta({ type: 'export_metadata', args: {} })).body as { sources: Array<{ name: string; kind: string; configuration: unknown }> };
    expect(exported.sources.find((s) => s.name === 'conf')).to.deep.include({ kind: 'mssql', configuration: { connection_info: { ...CONFIG.connection_info, isolation_level: 'snapshot' } } });
  });

  it('has every sqlb_ operation of Document 1 (§4.2-4.5), each checking its arguments', async () => {
    const spec = [
      'add_source', 'update_source', 'drop_source', 'track_table', 'untrack_table', 'set_table_customization', 'set_gateway_federation_config',
      'create_object_relationship', 'create_array_relationship', 'drop_relationship', 'rename_relationship', 'set_relationship_comment',
      'create_remote_relationship', 'update_remote_relationship', 'delete_remote_relationship',
      'create_event_trigger', 'delete_event_trigger', 'redeliver_event', 'invoke_event_trigger',
      ...['select', 'insert', 'update', 'delete'].flatMap((p) => [`create_${p}_permission`, `drop_${p}_permission`]), 'set_permission_comment',
    ];
    for (const name of spec) {
      const res = await meta({ type: `sqlb_${name}`, args: {} });
      expect(res.status, name).to.equal(400);
      expect(res.body.error ?? '', name).to.not.include('unknown operation type');
      expect(res.body.code, name).to.be.oneOf(['parse-failed', 'not-exists', 'invalid-configuration', 'already-exists']);
    }
  });

  it('offers only the operations the kind declares (the plugins offering the others are loaded)', async () => {
    for (const type of ['sqlb_track_function', 'sqlb_run_sql', 'sqlb_set_table_is_enum', 'sqlb_add_computed_field']) {
      const res = await meta({ type, args: { source: 'conf', table: table('article') } });
      expect(res.status, type).to.equal(400);
      expect(res.body, type).to.deep.include({ code: 'parse-failed', path: '$.type', error: `unknown operation type "${type}" on /v1/metadata` });
    }
  });

  it('tracks tables, refuses what does not exist, and builds relationships and permissions', async () => {
    const missing = await meta({ type: 'sqlb_track_table', args: { source: 'conf', table: table('nope') } });
    expect(missing.status).to.equal(400);
    const noSource = await meta({ type: 'sqlb_track_table', args: { source: 'nope', table: table('article') } });
    expect(noSource.status).to.equal(400);
    for (const name of ['author', 'article']) await ok({ type: 'sqlb_track_table', args: { source: 'conf', table: table(name), configuration: { custom_name: name } } });
    await ok({ type: 'sqlb_track_table', args: { source: 'other', table: table('author'), configuration: { custom_name: 'other_author' } } });
    await ok({ type: 'sqlb_set_table_customization', args: { source: 'conf', table: table('author'), configuration: { custom_name: 'author', column_config: { rating: { custom_name: 'stars' } } } } });
    await ok({ type: 'sqlb_create_object_relationship', args: { source: 'conf', table: table('article'), name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
    await ok({ type: 'sqlb_create_array_relationship', args: { source: 'conf', table: table('author'), name: 'articles', using: { foreign_key_constraint_on: { table: table('article'), column: 'author_id' } } } });
    const badRel = await meta({ type: 'sqlb_create_object_relationship', args: { source: 'conf', table: table('article'), name: 'x', using: { foreign_key_constraint_on: 'nope' } } });
    expect(badRel.status).to.equal(400);
    await ok({ type: 'sqlb_rename_relationship', args: { source: 'conf', table: table('article'), name: 'author', new_name: 'writer' } });
    await ok({ type: 'sqlb_set_relationship_comment', args: { source: 'conf', table: table('article'), relationship: 'writer', comment: 'who wrote it' } });
    await ok({ type: 'sqlb_create_select_permission', args: { source: 'conf', table: table('article'), role: 'user', permission: { columns: ['id', 'title'], filter: { author_id: { _eq: 'X-Svc-User-Id' } } } } });
    const badPerm = await meta({ type: 'sqlb_create_select_permission', args: { source: 'conf', table: table('article'), role: 'bad', permission: { columns: ['nope'], filter: {} } } });
    expect(badPerm.status).to.equal(400);
    const badOp = await meta({ type: 'sqlb_create_select_permission', args: { source: 'conf', table: table('article'), role: 'bad', permission: { columns: ['id'], filter: { views: { _like: 'x' } } } } });
    expect(badOp.status).to.equal(400);
    await ok({ type: 'sqlb_create_insert_permission', args: { source: 'conf', table: table('article'), role: 'user', permission: { columns: ['title'], check: { title: { _ilike: 'ok%' } }, set: { author_id: 'X-Svc-User-Id' } } } });
    await ok({ type: 'sqlb_drop_insert_permission', args: { source: 'conf', table: table('article'), role: 'user' } });
    const d = await gql('{ author(limit: 1) { stars articles { writer { id } } } }');
    expect(d.errors).to.equal(undefined);
  });

  it('joins a table to a table of another source (to_source remote relationship)', async () => {
    await ok({
      type: 'sqlb_create_remote_relationship',
      args: { source: 'conf', table: table('article'), name: 'remote_author', definition: { to_source: { source: 'other', table: table('author'), relationship_type: 'object', field_mapping: { author_id: 'id' } } } },
    });
    const before = driver.statements.length;
    driver.roots.push('[{"id":1,"remote_author":{"author_id":3}},{"id":2,"remote_author":{"author_id":null}}]', '[{"__svc_join_0":3,"name":"Cy"}]');
    const res = await gql('{ article(order_by: {id: asc}) { id remote_author { name } } }');
    const sent = driver.statements.slice(before).map((s) => s.sql);
    expect(sent[0]).to.include('OUTER APPLY (SELECT (SELECT [_0].[author_id] AS [author_id] FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [j])');
    expect(sent).to.have.length(2);
    expect(sent[1]).to.equal(
      "SELECT ISNULL((SELECT [_0].[name] AS [name], [_0].[id] AS [__svc_join_0] FROM [dbo].[author] AS [_0] WHERE ([_0].[id] IN (SELECT [v] FROM OPENJSON(@p0) WITH ([v] INT '$'))) FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]') AS [root]",
    );
    expect(driver.statements[before + 1]!.params[0]).to.equal('[3]');
    expect(res).to.deep.equal({ data: { article: [{ id: 1, remote_author: { name: 'Cy' } }, { id: 2, remote_author: null }] } });
    await ok({ type: 'sqlb_update_remote_relationship', args: { source: 'conf', table: table('article'), name: 'remote_author', definition: { to_source: { source: 'other', table: table('author'), relationship_type: 'array', field_mapping: { author_id: 'id' } } } } });
  });

  it('explains a query: the statement with values as T-SQL literals, and the plan', async () => {
    const res = await engine.inject<Array<{ field: string; sql: string; plan: string[] }>>({
      url: '/v1/graphql/explain',
      headers: ADMIN,
      body: { query: { query: "query ($t: String) { article(where: {title: {_eq: $t}}) { id } }", variables: { t: "it's" } } },
    });
    expect(res.status).to.equal(200);
    expect(res.body[0]!.sql).to.include("N'it''s'").and.not.match(/@p\d/);
    expect(res.body[0]!.plan).to.not.be.empty;
  });

  it('round-trips its metadata: export, replace, the same export and the same statements', async () => {
    const q = '{ author { stars articles { title writer { id } } } }';
    const statement = async (): Promise<string> => {
      const before = driver.statements.length;
      expect((await gql(q)).errors).to.equal(undefined);
      return driver.statements[before]!.sql;
    };
    const first = await statement();
    const exported = (await meta({ type: 'export_metadata', args: {} })).body as { sources: Array<{ name: string }> };
    await ok({ type: 'replace_metadata', args: { ...exported, sources: exported.sources.filter((s) => s.name !== 'conf') } });
    expect((await gql(q)).errors?.[0]?.extensions?.code).to.equal('validation-failed');
    await ok({ type: 'replace_metadata', args: exported });
    expect((await meta({ type: 'export_metadata', args: {} })).body).to.deep.equal(exported);
    expect(await statement()).to.equal(first);
  });

  it('untracks and drops, refusing to drop a source others depend on unless asked to cascade', async () => {
    const missing = await meta({ type: 'sqlb_drop_relationship', args: { source: 'conf', table: table('author'), relationship: 'nope' } });
    expect(missing.status).to.equal(400);
    await ok({ type: 'sqlb_drop_relationship', args: { source: 'conf', table: table('author'), relationship: 'articles' } });
    await ok({ type: 'sqlb_drop_select_permission', args: { source: 'conf', table: table('article'), role: 'user' } });
    // conf.article's remote relationship reads source "other".
    const blocked = await meta({ type: 'sqlb_drop_source', args: { name: 'other' } });
    expect(blocked.status).to.equal(400);
    expect(JSON.stringify(blocked.body)).to.include('remote_author');
    await ok({ type: 'sqlb_drop_source', args: { name: 'other', cascade: true } });
    const left = (await meta({ type: 'export_metadata', args: {} })).body as { sources: Array<{ name: string; tables: Array<{ remote_relationships?: unknown[] }> }> };
    expect(left.sources.map((s) => s.name)).to.deep.equal(['conf']);
    expect(left.sources[0]!.tables.flatMap((t) => t.remote_relationships ?? [])).to.deep.equal([]);
    await ok({ type: 'sqlb_untrack_table', args: { source: 'conf', table: table('article'), cascade: true } });
    await ok({ type: 'sqlb_drop_source', args: { name: 'conf' } });
    expect(((await meta({ type: 'export_metadata', args: {} })).body as { sources: unknown[] }).sources).to.deep.equal([]);
    expect(driver.closed).to.equal(true);
  });
});
