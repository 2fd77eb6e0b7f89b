/**
 * Event triggers (Document 2 §2.2, §4.2): the triggers of every tracked table, create/replace,
 * delete, invoke with a payload, redeliver an event, clean up logs and pause/resume cleanups;
 * and the event log of a trigger with a redeliver button per event.
 */
import { useState } from 'react';
import { kindPrefix, type JsonObject } from '../api/metadata';
import { sqlRows } from '../api/client';
import { useConsole } from '../state';
import { ObjectSection, type ObjectKind } from '../components/ObjectSection';
import { ActionButton, Empty, ErrorBox, Section } from '../components/ui';

interface TriggerItem {
  source: string;
  prefix: string;
  table: { schema: string; name: string };
  trigger: JsonObject;
}

export function EventsPage() {
  const { metadata } = useConsole();
  const items: TriggerItem[] = [];
  for (const s of metadata?.sources ?? []) {
    for (const t of s.tables) for (const trigger of t.event_triggers ?? []) items.push({ source: s.name, prefix: kindPrefix(s.kind), table: t.table, trigger });
  }
  const firstTable = metadata?.sources[0]?.tables[0]?.table ?? { schema: 'public', name: 'my_table' };
  const kind: ObjectKind<TriggerItem> = {
    title: 'Event triggers',
    testId: 'event-triggers',
    items,
    name: (i) => String(i.trigger['name']),
    describe: (i) => (
      <>
        {i.source}.{i.table.schema}.{i.table.name} → <code>{String(i.trigger['webhook'] ?? `{{${String(i.trigger['webhook_from_env'] ?? '')}}}`)}</code>
      </>
    ),
    create: {
      label: 'Create trigger',
      type: 'pg_create_event_trigger',
      template: {
        name: 'my_trigger',
        source: metadata?.sources[0]?.name ?? 'default',
        table: { schema: firstTable.schema, name: firstTable.name },
        webhook: 'http://localhost:3000/events',
        insert: { columns: '*' },
        update: { columns: '*' },
        delete: { columns: '*' },
        enable_manual: true,
        retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 },
        headers: [],
        replace: false,
      },
    },
    actions: [
      {
        label: 'Edit',
        type: 'pg_create_event_trigger',
        edit: true,
        args: (i) => ({ ...exportedToArgs(i.trigger), source: i.source, table: { ...i.table }, replace: true }),
      },
      { label: 'Invoke…', type: 'pg_invoke_event_trigger', edit: true, args: (i) => ({ name: i.trigger['name'] ?? '', source: i.source, payload: {} }) },
      {
        label: 'Clean up logs…',
        type: 'cleanup_event_trigger_logs',
        edit: true,
        args: (i) => ({ event_trigger_name: i.trigger['name'] ?? '', source: i.source, clear_older_than: 168, batch_size: 10000, timeout: 60, clean_invocation_logs: false }),
      },
      {
        label: 'Delete',
        type: 'pg_delete_event_trigger',
        danger: true,
        confirm: 'Delete this event trigger and its database trigger?',
        args: (i) => ({ name: i.trigger['name'] ?? '', source: i.source }),
      },
    ],
    extra: [
      { label: 'Redeliver an event', type: 'pg_redeliver_event', template: { event_id: '' } },
      {
        label: 'Pause cleanups',
        type: 'pause_event_trigger_cleanups',
        template: { event_triggers: [{ source_name: metadata?.sources[0]?.name ?? 'default', event_triggers: items.map((i) => i.trigger['name'] ?? '') }] },
      },
      {
        label: 'Resume cleanups',
        type: 'resume_event_trigger_cleanups',
        template: { event_triggers: [{ source_name: metadata?.sources[0]?.name ?? 'default', event_triggers: items.map((i) => i.trigger['name'] ?? '') }] },
      },
    ],
  };
  return (
    <>
      <h1>Events</h1>
      <ObjectSection kind={kind} />
      <EventLog triggers={items} />
    </>
  );
}

/** The export keeps the operation specs under `definition`; create takes them at the top. */
function exportedToArgs(trigger: JsonObject): JsonObject {
  const def = (trigger['definition'] as JsonObject | undefined) ?? {};
  const out: JsonObject = { ...trigger, ...def };
  delete out['definition'];
  return out;
}

interface EventRow {
  id: string;
  op: string | null;
  delivered: string | null;
  error: string | null;
  tries: string | null;
  created_at: string | null;
  last_status: string | null;
}

/** Trigger names are `[A-Za-z0-9_-]` (the engine refuses others), so the literal below is safe; checked anyway. */
function eventLogSql(trigger: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(trigger)) throw new Error(`unexpected trigger name ${trigger}`);
  return `select e.id, e.payload->>'op' as op, e.delivered, e.error, e.tries, e.created_at,
  (select i.status from svc_catalog.event_invocation_logs i where i.event_id = e.id order by i.created_at desc limit 1) as last_status
from svc_catalog.event_log e where e.trigger_name = '${trigger}' and not e.archived
order by e.created_at desc limit 50`;
}

const statusOf = (e: EventRow): string => (e.delivered === 't' ? 'delivered' : e.error === 't' ? 'error' : 'pending');

/**
 * The event log of one trigger, read from `svc_catalog.event_log` in the source database with a
 * read-only run_sql (the engine has no operation that lists events), with redelivery per event.
 */
function EventLog({ triggers }: { triggers: TriggerItem[] }) {
  const { client } = useConsole();
  const [selected, setSelected] = useState(0);
  const [events, setEvents] = useState<EventRow[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const trigger = triggers[selected];
  const load = async () => {
    if (!trigger) return;
    setError(null);
    try {
      const r = await client.runSql({ sql: eventLogSql(String(trigger.trigger['name'])), source: trigger.source, read_only: true });
      setEvents(sqlRows(r) as unknown as EventRow[]);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <Section title="Event log">
      {triggers.length === 0 ? (
        <Empty>No event triggers.</Empty>
      ) : (
        <>
          <div className="row">
            <select value={selected} onChange={(e) => setSelected(Number(e.target.value))}>
              {triggers.map((t, i) => (
                <option key={i} value={i}>
                  {String(t.trigger['name'])}
                </option>
              ))}
            </select>
            <ActionButton testId="show-events" onClick={load}>
              Show events
            </ActionButton>
          </div>
          <ErrorBox error={error} />
          {events && events.length === 0 && <Empty>No events.</Empty>}
          {events && events.length > 0 && (
            <table className="grid" data-testid="event-log">
              <thead>
                <tr>
                  <th>Event</th>
                  <th>Operation</th>
                  <th>Status</th>
                  <th>Tries</th>
                  <th>Last HTTP status</th>
                  <th>Created (UTC)</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {events.map((e) => (
                  <tr key={e.id}>
                    <td>
                      <code>{e.id}</code>
                    </td>
                    <td>{e.op}</td>
                    <td>{statusOf(e)}</td>
                    <td>{e.tries}</td>
                    <td>{e.last_status ?? ''}</td>
                    <td>{e.created_at}</td>
                    <td>
                      <ActionButton
                        testId="redeliver-event"
                        onClick={async () => {
                          await client.metadata({ type: `${trigger!.prefix}_redeliver_event`, args: { event_id: e.id, source: trigger!.source } });
                          await load();
                        }}
                      >
                        Redeliver
                      </ActionButton>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </Section>
  );
}
