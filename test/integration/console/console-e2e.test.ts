/**
 * The console end to end, in headless Chromium against a real engine and PostgreSQL (issue 18's
 * scenario): log in with the admin secret, track tables, add a relationship suggested by a
 * foreign key, give a role a select permission with a row filter, run a query in GraphiQL as
 * that role and see only its rows, explain it, edit a row, and see an inconsistent object after
 * dropping a table on the SQL page. Every request the page makes must go to the engine.
 *
 * Screenshots go to a temporary folder; with SVC_CONSOLE_SCREENSHOTS=docs they replace the ones
 * in docs/images/console (npm run docs:console-screenshots).
 */
import { expect } from 'chai';
import { mkdtempSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { buildSchema, graphql as gql } from 'graphql';
import type { Engine } from '../../../core/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { graphql, metadata, startTestEngine } from '../../helpers/engine.js';
import { ensureConsoleBuilt, launchBrowser, type Browser } from '../../helpers/browser.js';
import { startWebhookSink } from '../../helpers/webhook-sink.js';

const SECRET = 'console-e2e-secret';
const DOCS_SHOTS = fileURLToPath(new URL('../../../docs/images/console', import.meta.url));

const SETUP = `
create table authors (id serial primary key, name text not null);
create table articles (
  id serial primary key,
  title text not null,
  author_id int not null references authors (id),
  published boolean not null default false
);
insert into authors (name) values ('Ada'), ('Brian');
insert into articles (title, author_id, published) values
  ('Ada on engines', 1, true), ('Ada on notes', 1, false), ('Brian on C', 2, true), ('Brian on awk', 2, true);
`;

const STEP = 30_000;

/** Polls a condition until it holds, failing with what was awaited after the step's deadline. */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + STEP;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('console end to end (headless Chromium)', function () {
  this.timeout(240_000);
  // One scenario in steps: a failed step leaves nothing for the next to stand on.
  this.bail(true);
  let db: TestDatabase;
  let engine: Engine;
  let browser: Browser;
  let page: Page;
  let shots: string;
  const foreignRequests: string[] = [];
  const pageErrors: string[] = [];

  const shot = async (name: string) => {
    const file = path.join(shots, `${name}.png`);
    await page.screenshot({ path: file });
    expect(statSync(file).size).to.be.greaterThan(5_000);
  };
  const goto = async (hash: string) => {
    await page.evaluate((h) => {
      window.location.hash = h;
    }, hash);
  };

  before(async function () {
    this.timeout(600_000);
    await ensureConsoleBuilt();
    db = await createTestDatabase('console_e2e', SETUP);
    engine = await startTestEngine({ databaseUrl: db.url, adminSecret: SECRET, enableConsole: true, enableRemoteSchemaPermissions: true });
    shots = process.env['SVC_CONSOLE_SCREENSHOTS'] === 'docs' ? DOCS_SHOTS : mkdtempSync(path.join(tmpdir(), 'svc-console-shots-'));
    mkdirSync(shots, { recursive: true });
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(STEP);
    const origin = new URL(engine.url).origin;
    page.on('request', (req) => {
      const url = req.url();
      if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) foreignRequests.push(url);
    });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('dialog', (d) => void d.accept());
  });
  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !page) return;
    // What the page showed when a step failed, for whoever reads the failure.
    const file = path.join(tmpdir(), `svc-console-failure-${Date.now()}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    console.error(`console e2e: screenshot of the failed step at ${file}`);
  });
  after(async () => {
    await browser?.close();
    await engine?.close();
    await db?.drop();
    if (shots && shots !== DOCS_SHOTS) rmSync(shots, { recursive: true, force: true });
  });

  it('asks for the admin secret at / and refuses a wrong one', async () => {
    await page.goto(`${engine.url}/`);
    expect(new URL(page.url()).pathname).to.equal('/console/');
    await page.getByTestId('admin-secret').fill('wrong');
    await page.getByTestId('login').click();
    await page.getByText('The admin secret was not accepted.').waitFor();
    await shot('01-login');
    await page.getByTestId('admin-secret').fill(SECRET);
    await page.getByTestId('login').click();
    await page.getByTestId('nav-data').waitFor();
    const stored = await page.evaluate(() => ({ session: sessionStorage.getItem('svc-console.admin-secret'), local: JSON.stringify(localStorage) }));
    expect(stored.session).to.equal(SECRET);
    expect(stored.local).to.not.include(SECRET);
  });

  it('tracks tables from the data page', async () => {
    await page.getByTestId('nav-data').click();
    await page.getByTestId('source-default').click();
    await page.getByTestId('track-authors').click();
    await page.getByTestId('table-authors').waitFor();
    await page.getByTestId('track-articles').click();
    await page.getByTestId('table-articles').waitFor();
    await shot('02-data-tracked');
  });

  it('adds a relationship suggested by a foreign key', async () => {
    await page.getByTestId('table-articles').click();
    await page.getByTestId('tab-relationships').click();
    const suggestion = page.getByTestId('suggestion-object-authors');
    await suggestion.waitFor();
    await suggestion.getByTestId('add-relationship').click();
    await page.getByTestId('relationship-author').waitFor();
    await shot('03-relationships');
  });

  it('creates a select permission with a row filter for a new role', async () => {
    await page.getByTestId('tab-permissions').click();
    await page.getByTestId('new-role').fill('user');
    await page.getByTestId('add-role').click();
    const editor = page.getByTestId('permission-editor');
    await editor.waitFor();
    await page.getByTestId('filter-add').click();
    await page.getByTestId('filter-column-0').selectOption('author_id');
    await page.getByTestId('filter-op-0').selectOption('_eq');
    await page.getByTestId('filter-value-0').fill('X-Svc-User-Id');
    for (const c of ['id', 'title', 'author_id']) await page.getByTestId(`column-${c}`).check();
    await page.getByTestId('save-permission').click();
    await page.getByTestId('permission-saved').waitFor();
    await shot('04-permissions');
  });

  it('shows an error from the engine next to the field it concerns', async () => {
    await page.getByTestId('filter-json-mode').check();
    await page.getByTestId('filter-json').fill('{"no_such_column": {"_eq": 1}}');
    await page.getByTestId('save-permission').click();
    const fieldError = page.getByTestId('field-error-filter');
    await fieldError.waitFor();
    expect(await fieldError.textContent()).to.include('no_such_column');
  });

  it('runs a query in GraphiQL as that role and sees only the permitted rows, then explains it', async () => {
    await page.getByTestId('role').fill('user');
    await page.getByTestId('role').press('Enter');
    await page.getByTestId('session-variables-toggle').click();
    await page.getByTestId('session-var-add').click();
    await page.getByTestId('session-var-name-0').fill('x-svc-user-id');
    await page.getByTestId('session-var-value-0').fill('1');
    await page.getByTestId('session-vars-apply').click();
    await page.getByTestId('role-now').getByText('user').waitFor();

    const query = 'query { articles(order_by: {id: asc}) { id title author_id } }';
    await goto(`#/api?query=${encodeURIComponent(query)}`);
    await page.locator('.graphiql-execute-button').waitFor();
    await page.locator('.graphiql-query-editor').getByText('articles').first().waitFor();
    await page.locator('.graphiql-execute-button').click();
    const response = page.locator('.graphiql-response');
    await response.getByText('Ada on notes').waitFor();
    const text = (await response.innerText()).replace(/\s+/g, ' ');
    expect(text).to.include('Ada on engines').and.include('Ada on notes');
    expect(text).to.not.include('Brian');
    await shot('05-graphiql-as-user');

    // History and the schema explorer are in the sidebar; the history holds the query just run.
    await page.getByLabel('Show History').click();
    await page.locator('.graphiql-history-item').first().waitFor();
    await page.getByLabel('Hide History').click();
    await page.getByLabel('Show GraphiQL Explorer').click();
    await page.locator('.graphiql-plugin').getByText('articles').first().waitFor();
    await page.getByLabel('Hide GraphiQL Explorer').click();

    await page.getByTestId('explain').click();
    const panel = page.getByTestId('explain-panel');
    await panel.locator('pre.sql').waitFor();
    expect(await panel.locator('pre.sql').innerText()).to.match(/select/i);
    await shot('06-explain');

    // The engine agrees: the same request over HTTP answers the same rows.
    const direct = await graphql(engine, query, undefined, { 'x-svc-admin-secret': SECRET, 'x-svc-role': 'user', 'x-svc-user-id': '1' });
    expect(direct.body.data.articles.map((a: { title: string }) => a.title)).to.deep.equal(['Ada on engines', 'Ada on notes']);
  });

  it('edits a row on the browse page', async () => {
    await goto('#/data/default/public/articles/browse');
    await page.getByTestId('rows').waitFor();
    await page.getByTestId('sort-id').click();
    await page.getByTestId('row-0').getByText('Ada on engines').waitFor();
    await page.getByTestId('edit-row-0').click();
    await page.getByTestId('edit-title').fill('Ada on analytical engines');
    await page.getByTestId('save-row').click();
    await page.getByTestId('row-0').getByText('Ada on analytical engines').waitFor();
    const { rows } = await db.sql('select title from articles where id = 1');
    expect(rows[0].title).to.equal('Ada on analytical engines');

    await page.getByTestId('filter-add').click();
    await page.getByTestId('filter-column-0').selectOption('author_id');
    await page.getByTestId('filter-value-0').fill('2');
    await page.getByTestId('filter-apply').click();
    await page.getByTestId('page-info').getByText('1–2 of 2').waitFor();
    await shot('07-browse-rows');
  });

  it('shows the dependency error of a drop, then the inconsistent object once the table is dropped without the check', async () => {
    await goto('#/sql');
    await page.getByTestId('sql').fill('drop table authors cascade');
    await page.getByTestId('run-sql').click();
    const error = page.getByTestId('sql-error');
    await error.waitFor();
    expect(await error.innerText()).to.include('author');
    await shot('08-sql-dependency-error');

    await page.getByTestId('sql-check-consistency').uncheck();
    await page.getByTestId('run-sql').click();
    await page.getByText('Done.').waitFor();
    await page.getByTestId('reload-after-sql').click();
    await page.getByTestId('nav-metadata').locator('.badge').waitFor();
    await goto('#/metadata');
    const list = page.getByTestId('inconsistent-objects');
    await list.waitFor();
    const text = await list.innerText();
    expect(text).to.include('authors');
    await shot('09-inconsistent-objects');

    await page.getByTestId('drop-inconsistent').click();
    await page.getByText('The metadata is consistent').waitFor();
  });

  it('adds a remote schema from its page and its field joins the API', async () => {
    const schema = buildSchema('type Query { hello: String }');
    const remote = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const { query, variables } = JSON.parse(body) as { query: string; variables?: Record<string, unknown> };
        void gql({ schema, source: query, variableValues: variables, rootValue: { hello: 'world' } }).then((result) =>
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result)),
        );
      });
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    try {
      const port = (remote.address() as AddressInfo).port;
      await goto('#/remote-schemas');
      await page.getByTestId('remote-schemas-create').click();
      await page.getByTestId('remote-schemas-args').fill(
        JSON.stringify({ name: 'greetings', definition: { url: `http://127.0.0.1:${port}/graphql`, timeout_seconds: 10 }, comment: 'from the console' }),
      );
      await page.getByTestId('remote-schemas-submit').click();
      await page.getByTestId('remote-schemas-list').getByText('greetings').waitFor();
      await page.getByTestId('remote-schemas-list').getByRole('button', { name: 'Reload' }).click();
      const answer = await graphql(engine, '{ hello }', undefined, { 'x-svc-admin-secret': SECRET });
      expect(answer.body).to.deep.equal({ data: { hello: 'world' } });

      // With remote schema permissions on, the role sees the remote field only once granted.
      const asUser = { 'x-svc-admin-secret': SECRET, 'x-svc-role': 'user', 'x-svc-user-id': '1' };
      expect((await graphql(engine, '{ hello }', undefined, asUser)).body).to.have.property('errors');
      await page.getByTestId('remote-schemas-list').getByRole('button', { name: 'Add permission…' }).click();
      await page.getByTestId('remote-schemas-args').fill(
        JSON.stringify({ remote_schema: 'greetings', role: 'user', definition: { schema: 'type Query { hello: String }' } }),
      );
      await page.getByTestId('remote-schemas-submit').click();
      await page.getByTestId('remote-schema-permissions-list').getByText('user').waitFor();
      await shot('12-remote-schemas');
      expect((await graphql(engine, '{ hello }', undefined, asUser)).body).to.deep.equal({ data: { hello: 'world' } });
    } finally {
      await new Promise((resolve) => remote.close(resolve));
    }
  });

  it('creates a query collection, allow-lists it and serves it as a REST endpoint from their pages', async () => {
    await goto('#/collections');
    await page.getByTestId('collections-create').click();
    await page.getByTestId('collections-submit').click();
    await page.getByTestId('collections-list').getByText('my_collection').waitFor();
    await page.getByTestId('collections-list').getByRole('button', { name: 'Add to allow-list…' }).click();
    await page.getByTestId('collections-submit').click();
    await page.getByTestId('allowlist-list').getByText('my_collection').waitFor();
    await page.getByTestId('rest-endpoints-create').click();
    await page.getByTestId('rest-endpoints-submit').click();
    await page.getByTestId('rest-endpoints-list').getByText('my_endpoint', { exact: true }).first().waitFor();
    await shot('10-collections-rest');
    const res = await fetch(`${engine.url}/api/rest/my_endpoint`, { headers: { 'x-svc-admin-secret': SECRET } });
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ __typename: 'query_root' });
  });

  it('sets API limits from their page', async () => {
    await goto('#/limits');
    await page.getByTestId('set-api-limits').click();
    await page.getByText('Limits saved.').waitFor();
    const exported = await metadata(engine, { type: 'export_metadata', version: 1, args: {} }, { 'x-svc-admin-secret': SECRET });
    expect(exported.body.api_limits).to.deep.include({ depth_limit: { global: 10, per_role: {} } });
  });

  it('creates an event trigger, sees its event delivered in the log and redelivers it', async () => {
    const hook = await startWebhookSink();
    const deliveries = hook.requests;
    try {
      await goto('#/events');
      await page.getByTestId('event-triggers-create').click();
      await page.getByTestId('event-triggers-args').fill(
        JSON.stringify({
          name: 'articles_all',
          source: 'default',
          table: { schema: 'public', name: 'articles' },
          webhook: `${hook.url}/hook`,
          insert: { columns: '*' },
          update: { columns: '*' },
          enable_manual: true,
          retry_conf: { num_retries: 0, interval_sec: 1, timeout_sec: 10 },
        }),
      );
      await page.getByTestId('event-triggers-submit').click();
      await page.getByTestId('event-triggers-list').getByText('articles_all').waitFor();
      await db.sql("insert into articles (title, author_id) values ('Event-sourced', 9)");
      await until(() => deliveries.length === 1, 'the insert event to be delivered');
      await until(async () => {
        await page.getByTestId('show-events').click();
        return (await page.getByTestId('event-log').getByText('delivered').count()) === 1;
      }, 'the event log to show the event delivered');
      await shot('11-events');
      await page.getByTestId('redeliver-event').click();
      await until(() => deliveries.length === 2, 'the redelivery');
      const [first, second] = deliveries.map((d) => d.json as { id: string; event: { op: string; data: { new: { title: string } } } });
      expect(first!.event.op).to.equal('INSERT');
      expect(first!.event.data.new.title).to.equal('Event-sourced');
      expect(second!.id).to.equal(first!.id);
    } finally {
      await hook.close();
    }
  });

  it('sets custom types, creates an action with its permission, and the role calls its handler', async () => {
    const handler = await startWebhookSink();
    handler.respond(() => ({ body: JSON.stringify({ result: 'handled' }) }));
    const calls = handler.requests;
    try {
      await goto('#/actions');
      // The custom-types template already holds the output type the action template names.
      await page.getByTestId('custom-types-create').click();
      await page.getByTestId('custom-types-submit').click();
      await page.getByTestId('custom-types-list').getByText('objects: MyActionOutput').waitFor();
      await page.getByTestId('actions-create').click();
      await page.getByTestId('actions-args').fill(
        JSON.stringify({
          name: 'my_action',
          definition: { kind: 'synchronous', type: 'mutation', arguments: [{ name: 'input', type: 'String!' }], output_type: 'MyActionOutput', handler: `${handler.url}/action`, timeout: 30 },
          comment: 'from the console',
        }),
      );
      await page.getByTestId('actions-submit').click();
      await page.getByTestId('actions-list').getByText('my_action').waitFor();
      await page.getByTestId('actions-list').getByRole('button', { name: 'Grant role…' }).click();
      await page.getByTestId('actions-submit').click();
      await page.getByTestId('actions-list').getByText('roles: user').waitFor();
      await shot('13-actions');
      const answer = await graphql(engine, 'mutation { my_action(input: "hi") { result } }', undefined, { 'x-svc-admin-secret': SECRET, 'x-svc-role': 'user', 'x-svc-user-id': '1' });
      expect(answer.body).to.deep.equal({ data: { my_action: { result: 'handled' } } });
      expect(calls).to.have.length(1);
      expect(calls[0]!.json.input).to.deep.equal({ input: 'hi' });
      expect(calls[0]!.json.session_variables).to.include({ 'x-svc-role': 'user', 'x-svc-user-id': '1' });
    } finally {
      await handler.close();
    }
  });

  it('creates a cron trigger and schedules a one-off event that reaches its webhook', async () => {
    const hook = await startWebhookSink();
    const deliveries = hook.requests;
    try {
      await goto('#/scheduled');
      await page.getByTestId('cron-triggers-create').click();
      await page.getByTestId('cron-triggers-args').fill(
        JSON.stringify({ name: 'nightly', webhook: `${hook.url}/cron`, schedule: '0 3 * * *', payload: { job: 'nightly' }, include_in_metadata: true, comment: 'from the console' }),
      );
      await page.getByTestId('cron-triggers-submit').click();
      await page.getByTestId('cron-triggers-list').getByText('nightly').waitFor();
      await page.getByRole('button', { name: 'Schedule a one-off event' }).click();
      await page.getByTestId('cron-triggers-args').fill(
        JSON.stringify({ webhook: `${hook.url}/once`, schedule_at: new Date().toISOString(), payload: { once: true }, comment: 'one-off from the console' }),
      );
      await page.getByTestId('cron-triggers-submit').click();
      await until(() => deliveries.length === 1, 'the one-off event to reach its webhook');
      await shot('14-scheduled');
      expect(deliveries[0]!.json.payload).to.deep.equal({ once: true });
      const exported = await metadata(engine, { type: 'export_metadata', version: 1, args: {} }, { 'x-svc-admin-secret': SECRET });
      expect(exported.body.cron_triggers.map((c: { name: string }) => c.name)).to.deep.equal(['nightly']);
    } finally {
      await hook.close();
    }
  });

  it('made no request outside the engine and threw no page error', () => {
    expect(foreignRequests).to.deep.equal([]);
    expect(pageErrors).to.deep.equal([]);
  });
});
