/** Remote schemas and their role permissions (Document 1 §2.9, §4.8). */
import type { JsonObject } from '../api/metadata';
import { useConsole } from '../state';
import { ObjectSection, type ObjectKind } from '../components/ObjectSection';

export function RemoteSchemasPage() {
  const { metadata } = useConsole();
  const schemas = metadata?.remote_schemas ?? [];
  const remote: ObjectKind<JsonObject> = {
    title: 'Remote schemas',
    testId: 'remote-schemas',
    items: schemas,
    name: (r) => String(r['name']),
    describe: (r) => <code>{String(((r['definition'] as JsonObject | undefined) ?? {})['url'] ?? '')}</code>,
    create: {
      label: 'Add remote schema',
      type: 'add_remote_schema',
      template: {
        name: 'my_remote',
        definition: { url: 'http://localhost:4000/graphql', headers: [], forward_client_headers: false, timeout_seconds: 60 },
        comment: '',
      },
    },
    actions: [
      { label: 'Edit', type: 'update_remote_schema', edit: true, args: (r) => ({ name: r['name'] ?? '', definition: r['definition'] ?? {}, comment: r['comment'] ?? null }) },
      { label: 'Reload', type: 'reload_remote_schema', args: (r) => ({ name: r['name'] ?? '' }) },
      {
        label: 'Add permission…',
        type: 'add_remote_schema_permissions',
        edit: true,
        args: (r) => ({ remote_schema: r['name'] ?? '', role: 'user', definition: { schema: 'type Query {\n  field: String\n}' }, comment: '' }),
      },
      { label: 'Drop permission…', type: 'drop_remote_schema_permissions', edit: true, args: (r) => ({ remote_schema: r['name'] ?? '', role: 'user' }) },
      { label: 'Remove', type: 'remove_remote_schema', danger: true, confirm: 'Remove this remote schema?', args: (r) => ({ name: r['name'] ?? '' }) },
    ],
  };
  const permissions: ObjectKind<JsonObject> = {
    title: 'Remote schema permissions',
    testId: 'remote-schema-permissions',
    items: schemas.flatMap((r) => ((r['permissions'] as JsonObject[] | undefined) ?? []).map((p) => ({ ...p, remote_schema: r['name'] ?? '' }))),
    name: (p) => `${String(p['remote_schema'])} · ${String(p['role'])}`,
    describe: (p) => <pre className="sdl">{String(((p['definition'] as JsonObject | undefined) ?? {})['schema'] ?? '')}</pre>,
    actions: [
      { label: 'Drop', type: 'drop_remote_schema_permissions', danger: true, args: (p) => ({ remote_schema: p['remote_schema'] ?? '', role: p['role'] ?? '' }) },
    ],
  };
  return (
    <>
      <h1>Remote schemas</h1>
      <ObjectSection kind={remote} />
      <ObjectSection kind={permissions} />
    </>
  );
}
