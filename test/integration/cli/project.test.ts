import { expect } from 'chai';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { graphql, metadata, startTestEngine } from '../../helpers/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import type { Engine } from '../../../core/engine.js';
import { cli, closedPort } from './helpers.js';

const SECRET = 'cli-secret';

describe('CLI: init, migrate, metadata, seed against a running engine', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let engine: Engine;
  let work: string;
  let project: string;
  let env: NodeJS.ProcessEnv;
  const run = (...args: string[]) => cli(args, env);
  const ok = async (...args: string[]) => {
    const r = await run(...args);
    expect(r.code, `${args.join(' ')}: ${r.err}${r.out}`).to.equal(0);
    return r.out;
  };

  before(async () => {
    db = await createTestDatabase('cli');
    engine = await startTestEngine({ databaseUrl: db.url, adminSecret: SECRET });
    work = mkdtempSync(join(tmpdir(), 'svc-cli-'));
    project = join(work, 'app');
    env = { SVC_GRAPHQL_ENDPOINT: engine.url, SVC_GRAPHQL_ADMIN_SECRET: SECRET };
  });

  after(async () => {
    await engine?.close();
    await db?.drop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('init scaffolds a project folder', async () => {
    const out = (await cli(['init', project, '--endpoint', engine.url], {})).out;
    expect(out).to.include('project created');
    expect(parse(readFileSync(join(project, 'config.yaml'), 'utf8'))).to.include({ version: 3, endpoint: engine.url });
    expect(readFileSync(join(project, 'metadata', 'version.yaml'), 'utf8')).to.equal('version: 3\n');
    expect(existsSync(join(project, 'migrations'))).to.equal(true);
    expect(existsSync(join(project, 'seeds'))).to.equal(true);
    const again = await cli(['init', project], {});
    expect(again.code).to.equal(1);
    expect(again.err).to.match(/^error: .*already holds a config.yaml/);
  });

  it('migrate create / apply / status / down / --version --skip-execution', async () => {
    await ok('migrate', 'create', 'create_author', '--project', project, '--up-sql', 'CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);', '--down-sql', 'DROP TABLE author;');
    await ok('migrate', 'create', 'create_article', '--project', project, '--up-sql', 'CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id int REFERENCES author(id));', '--down-sql', 'DROP TABLE article;');
    const dirs = readdirSync(join(project, 'migrations', 'default')).sort();
    expect(dirs).to.have.length(2);
    expect(dirs[0]).to.match(/^\d{13}_create_author$/);
    expect(readFileSync(join(project, 'migrations', 'default', dirs[0]!, 'down.sql'), 'utf8')).to.equal('DROP TABLE author;\n');
    const [v1, v2] = dirs.map((d) => d.split('_')[0]!);

    let status = await ok('migrate', 'status', '--project', project);
    expect(status).to.match(new RegExp(`${v1}\\s+create_author\\s+Present\\s+Not Applied`));

    expect(await ok('migrate', 'apply', '--project', project)).to.include(`applied ${v2}_create_article`);
    status = await ok('migrate', 'status', '--project', project);
    expect(status).to.match(new RegExp(`${v1}\\s+create_author\\s+Present\\s+Applied`));
    expect(status).to.match(new RegExp(`${v2}\\s+create_article\\s+Present\\s+Applied`));
    expect((await db.sql(`SELECT to_regclass('public.article') AS t`)).rows[0].t).to.equal('article');
    expect(await ok('migrate', 'apply', '--project', project)).to.equal('nothing to apply\n');

    expect(await ok('migrate', 'apply', '--down', '1', '--project', project)).to.include(`rolled back ${v2}_create_article`);
    expect((await db.sql(`SELECT to_regclass('public.article') AS t`)).rows[0].t).to.equal(null);
    status = await ok('migrate', 'status', '--project', project);
    expect(status).to.match(new RegExp(`${v2}\\s+create_article\\s+Present\\s+Not Applied`));

    // Recording only: the table stays absent, the version counts as applied.
    await ok('migrate', 'apply', '--version', v2!, '--skip-execution', '--project', project);
    expect((await db.sql(`SELECT to_regclass('public.article') AS t`)).rows[0].t).to.equal(null);
    await ok('migrate', 'apply', '--version', v2!, '--type', 'down', '--skip-execution', '--project', project);
    await ok('migrate', 'apply', '--goto', v2!, '--project', project);
    expect((await db.sql(`SELECT to_regclass('public.article') AS t`)).rows[0].t).to.equal('article');
    const rows = (await db.sql('SELECT version::text, name FROM svc_catalog.schema_migrations ORDER BY version')).rows;
    expect(rows).to.deep.equal([{ version: v1, name: 'create_author' }, { version: v2, name: 'create_article' }]);
  });

  it('a failing migration applies nothing and exits non-zero', async () => {
    await ok('migrate', 'create', 'broken', '--project', project, '--up-sql', 'CREATE TABLE half (id int); SELECT * FROM no_such_table;', '--down-sql', 'DROP TABLE half;');
    const r = await run('migrate', 'apply', '--project', project);
    expect(r.code).to.equal(1);
    expect(r.err).to.match(/^error: migration \d+_broken failed \(nothing of it was applied\): run_sql failed \(postgres-error\)/);
    expect((await db.sql(`SELECT to_regclass('public.half') AS t`)).rows[0].t).to.equal(null);
    const dir = readdirSync(join(project, 'migrations', 'default')).find((d) => d.endsWith('_broken'))!;
    rmSync(join(project, 'migrations', 'default', dir), { recursive: true });
  });

  it('migrate squash combines applied migrations into one recorded as applied', async () => {
    const before = readdirSync(join(project, 'migrations', 'default')).sort();
    const from = before[0]!.split('_')[0]!;
    const out = await ok('migrate', 'squash', '--from', from, '--name', 'baseline', '--delete-source', '--project', project);
    expect(out).to.include('squashed 2 migration(s) into');
    expect(out).to.include('as applied');
    const after = readdirSync(join(project, 'migrations', 'default'));
    expect(after).to.have.length(1);
    expect(after[0]).to.match(/_baseline$/);
    const up = readFileSync(join(project, 'migrations', 'default', after[0]!, 'up.sql'), 'utf8');
    expect(up.indexOf('CREATE TABLE author')).to.be.lessThan(up.indexOf('CREATE TABLE article'));
    const down = readFileSync(join(project, 'migrations', 'default', after[0]!, 'down.sql'), 'utf8');
    expect(down.indexOf('DROP TABLE article')).to.be.lessThan(down.indexOf('DROP TABLE author'));
    const status = await ok('migrate', 'status', '--project', project);
    expect(status.trim().split('\n')).to.have.length(2);
    expect(status).to.match(/baseline\s+Present\s+Applied/);
  });

  it('metadata export -> edit a YAML file -> diff -> apply -> export equals the edit', async () => {
    for (const table of ['author', 'article']) {
      const r = await metadata(engine, { type: 'pg_track_table', args: { source: 'default', table } }, { 'x-svc-admin-secret': SECRET });
      expect(r.status).to.equal(200);
    }
    expect(await ok('metadata', 'export', '--project', project)).to.match(/metadata exported to .* \(resource version \d+\)/);
    const tables = join(project, 'metadata', 'databases', 'default', 'tables');
    expect(readFileSync(join(tables, 'tables.yaml'), 'utf8')).to.equal('- "!include public_author.yaml"\n- "!include public_article.yaml"\n');
    const databases = parse(readFileSync(join(project, 'metadata', 'databases', 'databases.yaml'), 'utf8'));
    expect(databases[0]).to.include({ name: 'default', kind: 'postgres', tables: '!include default/tables/tables.yaml' });
    expect(await ok('metadata', 'diff', '--project', project)).to.include('no differences');

    const authorFile = join(tables, 'public_author.yaml');
    const author = parse(readFileSync(authorFile, 'utf8'));
    author.array_relationships = [{ name: 'articles', using: { foreign_key_constraint_on: { column: 'author_id', table: { name: 'article', schema: 'public' } } } }];
    author.select_permissions = [{ role: 'user', permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Svc-User-Id' } } } }];
    const edited = stringify(author);
    writeFileSync(authorFile, edited);

    const diff = await ok('metadata', 'diff', '--project', project);
    expect(diff).to.include('~ databases/default/tables/public_author.yaml (modified in the project)');
    expect(diff).to.include('+select_permissions:');
    expect(diff).to.include('+  - role: user');

    expect(await ok('metadata', 'apply', '--project', project)).to.match(/metadata applied \(resource version (\d+) -> (\d+)\)/);
    expect(await ok('metadata', 'diff', '--project', project)).to.include('no differences');
    rmSync(join(project, 'metadata'), { recursive: true });
    await ok('metadata', 'export', '--project', project);
    expect(readFileSync(authorFile, 'utf8')).to.equal(edited);

    const q = await graphql(engine, '{ author { id } }', undefined, { 'x-svc-admin-secret': SECRET, 'x-svc-role': 'user', 'x-svc-user-id': '1' });
    expect(q.body).to.deep.equal({ data: { author: [] } });
  });

  it('apply refuses a stale resource version', async () => {
    const r = await run('metadata', 'apply', '--project', project, '--resource-version', '1');
    expect(r.code).to.equal(1);
    expect(r.err).to.match(/^error: replace_metadata failed \(conflict\)/);
  });

  it('metadata export writes actions.graphql (signatures and custom types) and apply reads it back', async () => {
    const admin = { 'x-svc-admin-secret': SECRET };
    const types = await metadata(engine, {
      type: 'set_custom_types',
      args: {
        scalars: [{ name: 'Token', description: 'an opaque "token"' }],
        enums: [{ name: 'Mood', values: [{ value: 'HAPPY' }, { value: 'GRUMPY', description: 'since monday', is_deprecated: true }] }],
        input_objects: [{ name: 'Credentials', fields: [{ name: 'username', type: 'String!' }, { name: 'password', type: 'String!' }] }],
        objects: [{ name: 'LoginOutput', description: 'what login answers', fields: [{ name: 'token', type: 'Token!' }, { name: 'mood', type: 'Mood' }] }],
      },
    }, admin);
    expect(types.status, JSON.stringify(types.body)).to.equal(200);
    const action = await metadata(engine, {
      type: 'create_action',
      args: {
        name: 'login',
        definition: { kind: 'synchronous', type: 'mutation', handler: 'http://127.0.0.1:9/login', arguments: [{ name: 'credentials', type: 'Credentials!', description: 'who' }], output_type: 'LoginOutput' },
        comment: 'logs in',
      },
    }, admin);
    expect(action.status, JSON.stringify(action.body)).to.equal(200);

    await ok('metadata', 'export', '--project', project);
    const dir = join(project, 'metadata');
    const sdlFile = join(dir, 'actions.graphql');
    const sdl = readFileSync(sdlFile, 'utf8');
    expect(sdl).to.include('type Mutation {\n  login(\n    "who"\n    credentials: Credentials!\n  ): LoginOutput\n}');
    expect(sdl).to.include('"what login answers"\ntype LoginOutput {\n  token: Token!\n  mood: Mood\n}');
    expect(sdl).to.include('input Credentials {').and.include('GRUMPY @deprecated').and.include('"an opaque \\"token\\""\nscalar Token');
    const yaml = parse(readFileSync(join(dir, 'actions.yaml'), 'utf8'));
    expect(yaml.actions[0].definition).to.not.have.any.keys('arguments', 'output_type', 'type');
    expect(yaml.actions[0]).to.include({ name: 'login', comment: 'logs in' });
    expect(yaml.custom_types.objects).to.deep.equal([{ name: 'LoginOutput' }]);
    expect(await ok('metadata', 'diff', '--project', project)).to.include('no differences');

    // Edit the SDL: a new argument and a new output field reach the engine through apply.
    const edited = sdl.replace('    credentials: Credentials!\n', '    credentials: Credentials!\n    remember: Boolean\n').replace('  mood: Mood\n', '  mood: Mood\n  expires: Int\n');
    writeFileSync(sdlFile, edited);
    expect(await ok('metadata', 'diff', '--project', project)).to.include('~ actions.graphql (modified in the project)');
    await ok('metadata', 'apply', '--project', project);
    const exported = (await metadata(engine, { type: 'export_metadata', args: {} }, admin)).body;
    expect(exported.actions[0].definition.arguments.map((a: { name: string }) => a.name)).to.deep.equal(['credentials', 'remember']);
    expect(exported.custom_types.objects[0].fields.map((f: { name: string }) => f.name)).to.deep.equal(['token', 'mood', 'expires']);
    rmSync(dir, { recursive: true });
    await ok('metadata', 'export', '--project', project);
    expect(readFileSync(sdlFile, 'utf8')).to.equal(edited);
  });

  it('seed create / apply', async () => {
    await ok('seed', 'create', 'authors', '--project', project);
    const dir = join(project, 'seeds', 'default');
    const [file] = readdirSync(dir);
    expect(file).to.match(/^\d{13}_authors\.sql$/);
    writeFileSync(join(dir, file!), `INSERT INTO author (name) VALUES ('Ann'), ('Bo');\n`);
    expect(await ok('seed', 'apply', '--project', project)).to.include(`applied seed ${file}`);
    const q = await graphql(engine, '{ author(order_by: {id: asc}) { name } }', undefined, { 'x-svc-admin-secret': SECRET });
    expect(q.body).to.deep.equal({ data: { author: [{ name: 'Ann' }, { name: 'Bo' }] } });
  });

  it('inconsistency list / drop, reload', async () => {
    await db.sql('DROP TABLE article');
    expect(await ok('metadata', 'reload', '--project', project)).to.include('inconsistent objects');
    expect(await ok('metadata', 'inconsistency', 'list', '--project', project)).to.include('name: table article');
    expect(await ok('metadata', 'inconsistency', 'drop', '--project', project)).to.include('dropped');
    expect(await ok('metadata', 'inconsistency', 'list', '--project', project)).to.equal('metadata is consistent\n');
  });

  it('prints clear errors with a non-zero exit', async () => {
    const wrong = await cli(['metadata', 'export', '--project', project, '--admin-secret', 'nope'], { SVC_GRAPHQL_ENDPOINT: engine.url });
    expect(wrong.code).to.equal(1);
    expect(wrong.err).to.match(/^error: export_metadata failed \(access-denied\)/);
    const closed = await closedPort();
    const down = await cli(['metadata', 'export', '--project', project, '--endpoint', `http://127.0.0.1:${closed}`], {});
    expect(down.code).to.equal(1);
    expect(down.err).to.equal(`error: cannot reach the engine at http://127.0.0.1:${closed}: ECONNREFUSED\n`);
    const noProject = await cli(['migrate', 'status', '--project', join(work, 'missing')], env);
    expect(noProject.code).to.equal(1);
    expect(noProject.err).to.include('is not a project folder');
    const badFlag = await cli(['migrate', 'apply', '--project', project, '--up', '1', '--down', '1'], env);
    expect(badFlag.code).to.equal(1);
    expect(badFlag.err).to.include('give at most one of --up, --down, --goto, --version');
  });

  it('metadata clear', async () => {
    await ok('metadata', 'clear', '--project', project);
    await ok('metadata', 'export', '--project', project);
    expect(existsSync(join(project, 'metadata', 'databases', 'default', 'tables', 'public_author.yaml'))).to.equal(false);
  });
});
