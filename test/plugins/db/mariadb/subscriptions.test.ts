/**
 * Subscriptions on MariaDB tables over real websockets (graphql-transport-ws): live queries that
 * follow writes made directly in MariaDB, per-role and per-session results with shared cohorts,
 * aggregates, and streams batched WITH TIES as PostgreSQL batches them. The same stream is run
 * against the PostgreSQL twin of the table and must give the same batches.
 */
import { expect } from 'chai';
import type { Client } from 'graphql-ws';
import { Received, transportClient, waitFor } from '../../../integration/subscriptions/fixture.js';
import type { SubscriptionManager } from '../../../../core/subscriptions/manager.js';
import { metadata } from '../../../helpers/engine.js';
import { ADMIN, startTwin, type Twin } from './twin.js';

const TASKS = `(1, 1, 1, '2024-01-01 10:00:00'), (2, 2, 1, NULL), (3, 2, 2, NULL), (4, 2, 2, NULL), (5, 3, 1, NULL), (6, 4, 2, NULL), (7, 5, 1, NULL)`;

type Tasks = { data: { m_task: Array<{ id: number; priority: number }> } };

describe('db/mariadb subscriptions over websockets (integration)', function () {
  this.timeout(60_000);
  let twin: Twin;
  let admin: Client;
  const wsUrl = (): string => `ws://127.0.0.1:${twin.engine.port}/v1/graphql`;
  const manager = (): SubscriptionManager => twin.engine.kernel.container.resolve<SubscriptionManager>('subscriptionManager');
  const mariaSql = (sql: string): Promise<unknown> => twin.maria.query(sql.replace(/\btask\b/g, `${twin.database}.task`));

  before(async () => {
    twin = await startTwin({
      prefix: 'subs',
      pgSql: `CREATE TABLE task (id int PRIMARY KEY, priority int NOT NULL, owner int NOT NULL, due timestamp(3) NULL); INSERT INTO task VALUES ${TASKS};`,
      mariaSql: (db) => [`CREATE TABLE ${db}.task (id INT PRIMARY KEY, priority INT NOT NULL, owner INT NOT NULL, due DATETIME(3) NULL)`, `INSERT INTO ${db}.task VALUES ${TASKS}`],
      tables: ['task'],
      config: { liveQueriesMultiplexedRefetchInterval: 100, streamingQueriesMultiplexedRefetchInterval: 100 },
    });
    const r = await metadata(
      twin.engine,
      {
        type: 'maria_create_select_permission',
        args: { source: 'maria', table: { schema: twin.database, name: 'task' }, role: 'user', permission: { columns: ['id', 'priority', 'owner'], filter: { owner: { _eq: 'X-Svc-User-Id' } }, allow_aggregations: true } },
      },
      ADMIN,
    );
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    admin = transportClient(wsUrl(), ADMIN);
  });
  after(async () => {
    await admin?.dispose();
    await twin?.close();
  });

  it('offers subscription root fields for MariaDB tables', async () => {
    const { pg: text } = await twin.both('{ __schema { subscriptionType { fields { name } } } }');
    for (const f of ['m_task', 'm_task_aggregate', 'm_task_by_pk', 'm_task_stream']) expect(text).to.include(`"${f}"`);
  });

  it('sends a live query result, again after a write in MariaDB, and not while nothing changes', async () => {
    const r = new Received<Tasks>();
    admin.subscribe({ query: 'subscription { m_task(where: {priority: {_gte: 4}}, order_by: {id: asc}) { id priority due } }' }, r.sink);
    expect((await r.nth(0)).data.m_task).to.deep.equal([
      { id: 6, priority: 4, due: null },
      { id: 7, priority: 5, due: null },
    ]);
    await new Promise((res) => setTimeout(res, 400));
    expect(r.values).to.have.length(1);
    await mariaSql(`INSERT INTO task VALUES (8, 9, 1, '2024-05-06 07:08:09')`);
    expect((await r.nth(1)).data.m_task.map((t) => t.id)).to.deep.equal([6, 7, 8]);
    expect(r.values[1]).to.deep.include({ data: { m_task: [{ id: 6, priority: 4, due: null }, { id: 7, priority: 5, due: null }, { id: 8, priority: 9, due: '2024-05-06T07:08:09' }] } });
    await mariaSql('DELETE FROM task WHERE id = 8');
    expect((await r.nth(2)).data.m_task.map((t) => t.id)).to.deep.equal([6, 7]);
  });

  it('answers each session its own rows, subscribers with one session sharing a cohort', async () => {
    const before = manager().stats().cohorts;
    const clients = ['1', '2', '1'].map((id) => transportClient(wsUrl(), { ...ADMIN, 'x-svc-role': 'user', 'x-svc-user-id': id }));
    try {
      const received = clients.map(() => new Received<{ data: { m_task_aggregate: { aggregate: { count: number; max: { priority: number } } } } }>());
      clients.forEach((c, i) => c.subscribe({ query: 'subscription { m_task_aggregate { aggregate { count max { priority } } } }' }, received[i]!.sink));
      const first = await Promise.all(received.map((r) => r.nth(0)));
      expect(first.map((v) => v.data.m_task_aggregate.aggregate)).to.deep.equal([
        { count: 4, max: { priority: 5 } },
        { count: 3, max: { priority: 4 } },
        { count: 4, max: { priority: 5 } },
      ]);
      await waitFor(() => (manager().stats().cohorts === before + 2 ? true : undefined), 5000, 'two cohorts for three subscribers');
      await mariaSql('UPDATE task SET priority = 6 WHERE id = 6');
      const second = await received[1]!.nth(1);
      expect(second.data.m_task_aggregate.aggregate).to.deep.equal({ count: 3, max: { priority: 6 } });
      await new Promise((res) => setTimeout(res, 300));
      // Owner 1's rows did not change: nothing more was sent to its subscribers.
      expect(received[0]!.values).to.have.length(1);
      expect(received[2]!.values).to.have.length(1);
      await mariaSql('UPDATE task SET priority = 4 WHERE id = 6');
    } finally {
      await Promise.all(clients.map((c) => c.dispose()));
    }
  });

  it('streams in batches WITH TIES as PostgreSQL does, then new rows as they come', async () => {
    const batches = async (field: 'task_stream' | 'm_task_stream', direction: 'ASC' | 'DESC', from: number): Promise<number[][]> => {
      const r = new Received<{ data: Record<string, Array<{ priority: number }>> }>();
      const unsubscribe = admin.subscribe(
        { query: `subscription { ${field}(batch_size: 2, cursor: {initial_value: {priority: ${from}}, ordering: ${direction}}) { id priority } }` },
        r.sink,
      );
      await r.nth(0);
      await new Promise((res) => setTimeout(res, 600));
      unsubscribe();
      return r.values.map((v) => v.data[field]!.map((t) => t.priority));
    };
    const maria = await batches('m_task_stream', 'ASC', 0);
    expect(maria).to.deep.equal([[1, 2, 2, 2], [3, 4], [5]]);
    expect(await batches('task_stream', 'ASC', 0)).to.deep.equal(maria);
    const down = await batches('m_task_stream', 'DESC', 3);
    expect(down).to.deep.equal([[2, 2, 2], [1]]);
    expect(await batches('task_stream', 'DESC', 3)).to.deep.equal(down);

    const live = new Received<{ data: { m_task_stream: Array<{ priority: number }> } }>();
    admin.subscribe({ query: 'subscription { m_task_stream(batch_size: 10, cursor: {initial_value: {priority: 5}}) { priority } }' }, live.sink);
    await new Promise((res) => setTimeout(res, 400));
    expect(live.values).to.have.length(0);
    await mariaSql('INSERT INTO task VALUES (20, 7, 1, NULL), (21, 6, 2, NULL)');
    expect((await live.nth(0)).data.m_task_stream.map((t) => t.priority)).to.deep.equal([6, 7]);
  });

  it('streams on a DATETIME cursor, read and compared as ISO text', async () => {
    await mariaSql(`UPDATE task SET due = '2024-02-01 00:00:00.5' WHERE id = 2`);
    const r = new Received<{ data: { m_task_stream: Array<{ id: number; due: string }> } }>();
    admin.subscribe({ query: 'subscription { m_task_stream(batch_size: 1, cursor: {initial_value: {due: "2024-01-01T00:00:00Z"}}) { id due } }' }, r.sink);
    await r.nth(1);
    expect(r.values.slice(0, 2).map((v) => v.data.m_task_stream)).to.deep.equal([[{ id: 1, due: '2024-01-01T10:00:00' }], [{ id: 2, due: '2024-02-01T00:00:00.5' }]]);
  });
});
