/** Query collections, the allow-list and REST endpoints (Document 1 §2.12, §2.13, §4.10, §4.11). */
import type { JsonObject } from '../api/metadata';
import { useConsole } from '../state';
import { ObjectSection, type ObjectKind } from '../components/ObjectSection';

export function CollectionsPage() {
  const { metadata } = useConsole();
  const collections: ObjectKind<JsonObject> = {
    title: 'Query collections',
    testId: 'collections',
    items: metadata?.query_collections ?? [],
    name: (c) => String(c['name']),
    describe: (c) => {
      const queries = (((c['definition'] as JsonObject | undefined) ?? {})['queries'] as JsonObject[] | undefined) ?? [];
      return <span className="muted">{queries.map((q) => String(q['name'])).join(', ') || 'no queries'}</span>;
    },
    create: {
      label: 'Create collection',
      type: 'create_query_collection',
      template: { name: 'my_collection', definition: { queries: [{ name: 'my_query', query: 'query my_query { __typename }' }] }, comment: '' },
    },
    actions: [
      { label: 'Add query…', type: 'add_query_to_collection', edit: true, args: (c) => ({ collection_name: c['name'] ?? '', query_name: 'another_query', query: 'query another_query { __typename }' }) },
      { label: 'Drop query…', type: 'drop_query_from_collection', edit: true, args: (c) => ({ collection_name: c['name'] ?? '', query_name: '' }) },
      { label: 'Rename…', type: 'rename_query_collection', edit: true, args: (c) => ({ name: c['name'] ?? '', new_name: '' }) },
      { label: 'Add to allow-list…', type: 'add_collection_to_allowlist', edit: true, args: (c) => ({ collection: c['name'] ?? '', scope: { global: true } }) },
      { label: 'Drop', type: 'drop_query_collection', danger: true, confirm: 'Drop this collection (and remove it from the allow-list)?', args: (c) => ({ collection: c['name'] ?? '', cascade: true }) },
    ],
  };
  const allowlist: ObjectKind<JsonObject> = {
    title: 'Allow-list',
    testId: 'allowlist',
    items: metadata?.allowlist ?? [],
    name: (a) => String(a['collection']),
    describe: (a) => <code>{JSON.stringify(a['scope'] ?? { global: true })}</code>,
    actions: [
      { label: 'Change scope…', type: 'update_scope_of_collection_in_allowlist', edit: true, args: (a) => ({ collection: a['collection'] ?? '', scope: a['scope'] ?? { global: true } }) },
      { label: 'Remove', type: 'drop_collection_from_allowlist', danger: true, args: (a) => ({ collection: a['collection'] ?? '' }) },
    ],
  };
  const rest: ObjectKind<JsonObject> = {
    title: 'REST endpoints',
    testId: 'rest-endpoints',
    items: metadata?.rest_endpoints ?? [],
    name: (r) => String(r['name']),
    describe: (r) => (
      <>
        {((r['methods'] as string[] | undefined) ?? []).join(', ')} <code>{String(r['url'])}</code>
      </>
    ),
    create: {
      label: 'Create endpoint',
      type: 'create_rest_endpoint',
      template: {
        name: 'my_endpoint',
        url: 'my_endpoint',
        methods: ['GET'],
        definition: { query: { collection_name: metadata?.query_collections?.[0]?.['name'] ?? 'my_collection', query_name: 'my_query' } },
        comment: '',
      },
    },
    actions: [{ label: 'Drop', type: 'drop_rest_endpoint', danger: true, args: (r) => ({ name: r['name'] ?? '' }) }],
  };
  return (
    <>
      <h1>Query collections, allow-list and REST endpoints</h1>
      <ObjectSection kind={collections} />
      <ObjectSection kind={allowlist} />
      <ObjectSection kind={rest} />
    </>
  );
}
