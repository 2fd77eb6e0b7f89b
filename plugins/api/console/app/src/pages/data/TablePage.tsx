/** One tracked table: its rows, a form to insert one, its relationships and its permissions. */
import type { QualifiedName, SourceEntry } from '../../api/metadata';
import { findTable, tableLabel } from '../../api/metadata';
import { href, useConsole } from '../../state';
import { ErrorBox } from '../../components/ui';
import { useCatalog } from './useCatalog';
import { BrowseRows } from './BrowseRows';
import { InsertRow } from './InsertRow';
import { Relationships } from './Relationships';
import { Permissions } from './Permissions';

const TABS: readonly [string, string][] = [
  ['browse', 'Browse rows'],
  ['insert', 'Insert row'],
  ['relationships', 'Relationships'],
  ['permissions', 'Permissions'],
];

export function TablePage({ source, table, tab }: { source: SourceEntry; table: QualifiedName; tab: string }) {
  const { metadata } = useConsole();
  const entry = findTable(metadata, source.name, table);
  const { catalog, error, reload } = useCatalog(source.name);
  const dbTable = catalog?.tables.find((t) => t.schema === table.schema && t.name === table.name);
  return (
    <>
      <h1>
        <a href={href('data')}>Data</a> / <a href={href('data', source.name)}>{source.name}</a> / {tableLabel(table)}
      </h1>
      <nav className="tabs">
        {TABS.map(([id, label]) => (
          <a key={id} href={href('data', source.name, table.schema, table.name, id)} className={tab === id ? 'active' : undefined} data-testid={`tab-${id}`}>
            {label}
          </a>
        ))}
      </nav>
      <ErrorBox error={error} />
      {!entry && <ErrorBox error={new Error(`${tableLabel(table)} is not tracked in ${source.name}.`)} />}
      {entry && catalog && !dbTable && <ErrorBox error={new Error(`${tableLabel(table)} is tracked but not in the database (see Metadata → inconsistent objects).`)} />}
      {entry && dbTable && catalog && (
        <>
          {tab === 'browse' && <BrowseRows source={source} entry={entry} table={dbTable} />}
          {tab === 'insert' && <InsertRow source={source} entry={entry} table={dbTable} />}
          {tab === 'relationships' && <Relationships source={source} entry={entry} catalog={catalog} onChanged={reload} />}
          {tab === 'permissions' && <Permissions source={source} entry={entry} table={dbTable} />}
        </>
      )}
    </>
  );
}
