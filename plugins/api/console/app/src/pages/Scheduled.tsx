/**
 * Cron triggers and one-off scheduled events (Document 2 §2.3, §4.3), on the legacy /v1/query
 * path where the spec puts them.
 */
import type { JsonObject } from '../api/metadata';
import { useConsole } from '../state';
import { ObjectSection, type ObjectKind } from '../components/ObjectSection';

export function ScheduledPage() {
  const { metadata } = useConsole();
  const cron: ObjectKind<JsonObject> = {
    title: 'Cron triggers',
    testId: 'cron-triggers',
    items: metadata?.cron_triggers ?? [],
    name: (c) => String(c['name']),
    describe: (c) => (
      <>
        <code>{String(c['schedule'])}</code> → <code>{String(c['webhook'])}</code>
      </>
    ),
    create: {
      label: 'Create cron trigger',
      type: 'create_cron_trigger',
      endpoint: 'query',
      template: {
        name: 'my_cron',
        webhook: 'http://localhost:3000/cron',
        schedule: '*/5 * * * *',
        payload: {},
        headers: [],
        include_in_metadata: true,
        comment: '',
        replace: false,
      },
    },
    actions: [
      { label: 'Edit', type: 'create_cron_trigger', endpoint: 'query', edit: true, args: (c) => ({ ...c, replace: true }) },
      {
        label: 'Delete',
        type: 'delete_cron_trigger',
        endpoint: 'query',
        danger: true,
        confirm: 'Delete this cron trigger and its scheduled events?',
        args: (c) => ({ name: c['name'] ?? '' }),
      },
    ],
    extra: [
      {
        label: 'Schedule a one-off event',
        type: 'create_scheduled_event',
        endpoint: 'query',
        template: { webhook: 'http://localhost:3000/once', schedule_at: new Date(Date.now() + 3600_000).toISOString(), payload: {}, headers: [], comment: '' },
      },
    ],
  };
  return (
    <>
      <h1>Cron triggers and scheduled events</h1>
      <ObjectSection kind={cron} />
    </>
  );
}
