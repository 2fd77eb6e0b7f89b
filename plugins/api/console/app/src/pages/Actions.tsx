/** Actions, their permissions, and the custom types they use (Document 1 §2.10, §2.11, §4.9). */
import type { JsonObject } from '../api/metadata';
import { useConsole } from '../state';
import { ObjectSection, type ObjectKind } from '../components/ObjectSection';

export function ActionsPage() {
  const { metadata } = useConsole();
  const actions: ObjectKind<JsonObject> = {
    title: 'Actions',
    testId: 'actions',
    items: metadata?.actions ?? [],
    name: (a) => String(a['name']),
    describe: (a) => {
      const def = (a['definition'] as JsonObject | undefined) ?? {};
      const perms = ((a['permissions'] as { role: string }[] | undefined) ?? []).map((p) => p.role);
      return (
        <>
          {String(def['kind'] ?? 'synchronous')} → <code>{String(def['handler'] ?? '')}</code>
          {perms.length > 0 && <span className="muted"> roles: {perms.join(', ')}</span>}
        </>
      );
    },
    create: {
      label: 'Create action',
      type: 'create_action',
      template: {
        name: 'my_action',
        definition: {
          kind: 'synchronous',
          type: 'mutation',
          arguments: [{ name: 'input', type: 'String!' }],
          output_type: 'MyActionOutput',
          handler: 'http://localhost:3000/action',
          timeout: 30,
        },
        comment: '',
      },
    },
    actions: [
      { label: 'Edit', type: 'update_action', edit: true, args: (a) => ({ name: a['name'] ?? '', definition: a['definition'] ?? {}, comment: a['comment'] ?? null }) },
      { label: 'Grant role…', type: 'create_action_permission', edit: true, args: (a) => ({ action: a['name'] ?? '', role: 'user', comment: '' }) },
      { label: 'Revoke role…', type: 'drop_action_permission', edit: true, args: (a) => ({ action: a['name'] ?? '', role: 'user' }) },
      { label: 'Drop', type: 'drop_action', danger: true, confirm: 'Drop this action and its permissions?', args: (a) => ({ name: a['name'] ?? '', clear_data: true }) },
    ],
  };
  const types = metadata?.custom_types ?? {};
  const customTypes: ObjectKind<[string, unknown]> = {
    title: 'Custom types',
    testId: 'custom-types',
    items: (['input_objects', 'objects', 'scalars', 'enums'] as const).flatMap((k) => ((types[k] as JsonObject[] | undefined) ?? []).map((t) => [`${k}: ${String(t['name'])}`, t] as [string, unknown])),
    name: (t) => t[0],
    create: {
      label: 'Set custom types',
      type: 'set_custom_types',
      template: {
        input_objects: (types['input_objects'] as JsonObject[] | undefined) ?? [],
        objects: (types['objects'] as JsonObject[] | undefined) ?? [{ name: 'MyActionOutput', fields: [{ name: 'result', type: 'String!' }] }],
        scalars: (types['scalars'] as JsonObject[] | undefined) ?? [],
        enums: (types['enums'] as JsonObject[] | undefined) ?? [],
      },
    },
  };
  return (
    <>
      <h1>Actions</h1>
      <ObjectSection kind={customTypes} />
      <ObjectSection kind={actions} />
    </>
  );
}
