import { expect } from 'chai';
import { parse } from 'yaml';
import { convertReferenceMetadata, referenceClaimsMap } from '../../../core/project/reference-import.js';
import { readActionsGraphql } from '../../../core/project/actions-graphql.js';
import { filesToMetadata, metadataToFiles, type JsonObject } from '../../../core/project/metadata-files.js';
import { diffLines } from '../../../core/project/diff.js';
import { planApply, type LocalMigration } from '../../../core/project/migrations.js';

describe('project files and reference conversion', () => {
  it('renames the vendor words in keys and values, keeps kinds and read_replicas', () => {
    const c = convertReferenceMetadata({
      version: 3,
      sources: [
        {
          name: 'sql',
          kind: 'mssql',
          configuration: { connection_info: { connection_string: { from_env: 'HASURA_GRAPHQL_MSSQL_URL' } }, read_replicas: [{ connection_string: 'x' }] },
          tables: [
            {
              table: { schema: 'dbo', name: 't' },
              remote_relationships: [{ name: 'r', definition: { remote_schema: 's', hasura_fields: ['id'], remote_field: { f: { arguments: { id: '$id' } } } } }],
            },
          ],
        },
        { name: 'odd', kind: 'dataconnector', tables: [], configuration: {} },
      ],
      actions: [{ name: 'a', definition: { handler: '{{HASURA_GRAPHQL_ACTIONS_URL}}/a', headers: [{ name: 'X-Hasura-Role', value: 'x' }], forward_client_headers: true } }],
      query_collections: [{ name: 'c', definition: { queries: [] } }],
      bulk: [{ type: 'mssql_track_table', args: {} }, { type: 'citus_run_sql', args: {} }, { type: 'bigquery_track_table', args: {} }],
    } as JsonObject);
    const m = c.metadata as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(m.sources[0].kind).to.equal('mssql');
    expect(m.sources[0].configuration.read_replicas).to.have.length(1);
    expect(m.sources[0].tables[0].remote_relationships[0].definition.svc_fields).to.deep.equal(['id']);
    expect(m.sources[0].tables[0].remote_relationships[0].definition.hasura_fields).to.equal(undefined);
    expect(m.actions[0].definition.handler).to.equal('{{SVC_GRAPHQL_ACTIONS_URL}}/a');
    expect(m.actions[0].definition.headers[0].name).to.equal('X-Svc-Role');
    expect(m.bulk.map((b: { type: string }) => b.type)).to.deep.equal(['sqlb_track_table', 'dist_run_sql', 'wh_track_table']);
    expect([...c.envVars].sort()).to.deep.equal(['SVC_GRAPHQL_ACTIONS_URL', 'SVC_GRAPHQL_MSSQL_URL']);
    expect(c.warnings).to.deep.equal(['source odd has kind "dataconnector", which this engine does not know; load a plugin for it or remove the source']);
  });

  it('a claims_map always maps roles; other session variables as used', () => {
    expect(Object.keys(referenceClaimsMap(['x-svc-org-id', 'x-svc-role']))).to.deep.equal(['x-svc-allowed-roles', 'x-svc-default-role', 'x-svc-org-id']);
  });

  it('reads actions.graphql into actions and custom types', () => {
    const doc: JsonObject = {
      actions: [{ name: 'login', definition: { kind: 'synchronous', handler: 'http://h/login' }, permissions: [{ role: 'anonymous' }] }],
      custom_types: { objects: [{ name: 'LoginOutput', relationships: [{ name: 'user', type: 'object' }] }] },
    };
    readActionsGraphql(
      `type Mutation { login(username: String!, password: String!): LoginOutput }
       type Query { whoami: String }
       "the token" type LoginOutput { accessToken: String! }
       input Creds { username: String! }
       enum Level { LOW HIGH @deprecated }
       scalar Email`,
      doc,
    );
    const actions = doc['actions'] as any[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(actions[0].definition).to.deep.include({ type: 'mutation', output_type: 'LoginOutput', handler: 'http://h/login' });
    expect(actions[0].definition.arguments).to.deep.equal([{ name: 'username', type: 'String!' }, { name: 'password', type: 'String!' }]);
    expect(actions[1]).to.deep.equal({ name: 'whoami', definition: { arguments: [], output_type: 'String', type: 'query' } });
    const types = doc['custom_types'] as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(types.objects[0]).to.deep.equal({ name: 'LoginOutput', relationships: [{ name: 'user', type: 'object' }], description: 'the token', fields: [{ name: 'accessToken', type: 'String!' }] });
    expect(types.enums[0].values[1]).to.deep.equal({ value: 'HIGH', is_deprecated: true });
    expect(types.scalars).to.deep.equal([{ name: 'Email' }]);
  });

  it('files round-trip: metadata -> files -> metadata', () => {
    const doc: JsonObject = {
      version: 3,
      sources: [
        {
          name: 'default',
          kind: 'postgres',
          tables: [{ table: { schema: 'public', name: 'a' } }, { table: { name: 'b', schema: 's' } }],
          functions: [{ function: { schema: 'public', name: 'f' } }],
          configuration: { connection_info: { database_url: 'postgres://x' } },
        },
      ],
      query_collections: [{ name: 'q', definition: { queries: [] } }],
      allowlist: [{ collection: 'q' }],
      actions: [{ name: 'x', definition: {} }],
    };
    const files = metadataToFiles(doc);
    expect([...files.keys()].sort()).to.deep.equal([
      'actions.graphql',
      'actions.yaml',
      'allow_list.yaml',
      'databases/databases.yaml',
      'databases/default/functions/functions.yaml',
      'databases/default/functions/public_f.yaml',
      'databases/default/tables/public_a.yaml',
      'databases/default/tables/s_b.yaml',
      'databases/default/tables/tables.yaml',
      'query_collections.yaml',
      'version.yaml',
    ]);
    expect(filesToMetadata((p) => files.get(p))).to.deep.equal(doc);
  });

  it('actions round-trip through actions.yaml + actions.graphql as the reference CLI lays them out', () => {
    const doc: JsonObject = {
      version: 3,
      sources: [],
      actions: [
        {
          name: 'login',
          definition: {
            kind: 'synchronous',
            handler: 'http://h/login',
            type: 'mutation',
            arguments: [{ name: 'creds', type: 'Creds!', description: 'with "quotes" and \\ and\nlines' }],
            output_type: 'Out',
          },
          comment: 'logs in',
          permissions: [{ role: 'user' }],
        },
        { name: 'me', definition: { handler: 'http://h/me', type: 'query', arguments: [], output_type: '[Out!]!' } },
      ],
      custom_types: {
        enums: [{ name: 'Mood', description: 'how', values: [{ value: 'OK', is_deprecated: false }, { value: 'BAD', description: 'old', is_deprecated: true }] }],
        input_objects: [{ name: 'Creds', fields: [{ name: 'user', type: 'String!', description: 'name' }] }],
        objects: [
          {
            name: 'Out',
            description: 'the answer',
            fields: [{ name: 'id', type: 'Int!' }, { name: 'mood', type: 'Mood' }],
            relationships: [{ name: 'row', type: 'object', remote_table: { schema: 'public', name: 't' }, field_mapping: { id: 'id' } }],
          },
        ],
        scalars: [{ name: 'Token', description: 'opaque' }],
      },
    };
    const files = metadataToFiles(doc);
    const sdl = files.get('actions.graphql')!;
    expect(sdl).to.match(/^type Query \{\n {2}me: \[Out!\]!\n\}\n\ntype Mutation \{\n {2}login\(/);
    const yaml = parse(files.get('actions.yaml')!);
    expect(yaml.actions[0].definition).to.deep.equal({ kind: 'synchronous', handler: 'http://h/login' });
    expect(yaml.custom_types.objects[0]).to.deep.equal({ name: 'Out', relationships: (doc['custom_types'] as any).objects[0].relationships }); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(filesToMetadata((p) => files.get(p))).to.deep.equal(doc);
  });

  it('an unquoted !include tag reads like the quoted form; a missing include is named', () => {
    const files = new Map([
      ['databases/databases.yaml', '- name: d\n  kind: postgres\n  tables: !include d/tables/tables.yaml\n  configuration: {}\n'],
      ['databases/d/tables/tables.yaml', '- !include t.yaml\n'],
      ['databases/d/tables/t.yaml', 'table: {schema: public, name: t}\n'],
    ]);
    expect((filesToMetadata((p) => files.get(p))['sources'] as any)[0].tables).to.deep.equal([{ table: { schema: 'public', name: 't' } }]); // eslint-disable-line @typescript-eslint/no-explicit-any
    files.delete('databases/d/tables/t.yaml');
    expect(() => filesToMetadata((p) => files.get(p))).to.throw('databases/d/tables/tables.yaml: included file databases/d/tables/t.yaml is missing');
  });

  it('diffs lines with context', () => {
    expect(diffLines(['a', 'b', 'c'], ['a', 'x', 'c'])).to.deep.equal([' a', '+x', '-b', ' c']);
  });

  it('plans migrate apply: up, down, goto, version', () => {
    const m = (v: string): LocalMigration => ({ version: v, name: `m${v}`, dir: '', up: '', down: '' });
    const local = [m('1'), m('2'), m('3')];
    const names = (steps: ReturnType<typeof planApply>) => steps.map((s) => `${s.direction}:${s.migration.version}`);
    expect(names(planApply(local, new Set(['1']), { kind: 'up' }))).to.deep.equal(['up:2', 'up:3']);
    expect(names(planApply(local, new Set(['1', '2', '3']), { kind: 'down', count: 2 }))).to.deep.equal(['down:3', 'down:2']);
    expect(names(planApply(local, new Set(['1', '2', '3']), { kind: 'goto', version: '1' }))).to.deep.equal(['down:3', 'down:2']);
    expect(names(planApply(local, new Set(['1']), { kind: 'goto', version: '2' }))).to.deep.equal(['up:2']);
    expect(() => planApply(local, new Set(['1']), { kind: 'version', version: '1', direction: 'up' })).to.throw('already applied');
    expect(() => planApply(local, new Set(), { kind: 'version', version: '9', direction: 'up' })).to.throw('no migration with version 9');
  });
});
