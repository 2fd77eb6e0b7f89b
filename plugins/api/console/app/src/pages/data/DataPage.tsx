/**
 * Data: the sources, what each database holds (tables, views, functions; tracked or not), and
 * per table the rows, relationships and permissions. Route: data[/source[/schema/table[/tab]]].
 */
import { useState } from 'react';
import { useConsole, href, navigate } from '../../state';
import { kindPrefix, tableLabel, type Json, type SourceEntry } from '../../api/metadata';
import { ActionButton, Empty, ErrorBox, JsonField, Section } from '../../components/ui';
import { useCatalog } from './useCatalog';
import { TablePage } from './TablePage';
import { OperationButton } from '../../components/OperationButton';

export function DataPage({ route }: { route: string[] }) {
  const { metadata } = useConsole();
  const [sourceName, schema, table, tab] = route;
  if (!metadata) return <p>Loading metadata…</p>;
  const source = metadata.sources.find((s) => s.name === sourceName);
  if (!sourceName) return <Sources />;
  if (!source) return <ErrorBox error={new Error(`No source named ${sourceName}.`)} />;
  if (schema && table) return <TablePage source={source} table={{ schema, name: table }} tab={tab ?? 'browse'} />;
  return <SourceEntities source={source} />;
}

function Sources() {
  const { client, metadata, refresh } = useConsole();
  const [name, setName] = useState('');
  const [kind, setKind] = useState('pg');
  const [configuration, setConfiguration] = useState<Json>({ connection_info: { database_url: { from_env: 'SVC_GRAPHQL_DATABASE_URL' } } });
  return (
    <>
      <Section title="Sources">
        <table className="grid">
          <thead>
            <tr>
              <th>Name</th>
              <th>Kind</th>
              <th>Tables</th>
              <th>Functions</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {metadata!.sources.map((s) => (
              <tr key={s.name}>
                <td>
                  <a href={href('data', s.name)} data-testid={`source-${s.name}`}>
                    {s.name}
                  </a>
                </td>
                <td>{s.kind}</td>
                <td>{s.tables.length}</td>
                <td>{s.functions?.length ?? 0}</td>
                <td>
                  <OperationButton
                    danger
                    confirm={`Drop source ${s.name} and everything tracked in it?`}
                    op={{ type: `${kindPrefix(s.kind)}_drop_source`, args: { name: s.name, cascade: true } }}
                  >
                    Drop
                  </OperationButton>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
      <Section title="Connect a database">
        <div className="form">
          <label>
            Name <input value={name} onChange={(e) => setName(e.target.value)} />
          </label>
          <label>
            Kind
            <select value={kind} onChange={(e) => setKind(e.target.value)}>
              <option value="pg">PostgreSQL (pg)</option>
              <option value="dist">Citus (dist)</option>
              <option value="sqlb">sqlb</option>
              <option value="wh">wh</option>
            </select>
          </label>
          <label>
            Configuration (a database URL or <code>{'{"from_env": "VAR"}'}</code> under connection_info)
            <JsonField value={configuration} onChange={setConfiguration} rows={5} />
          </label>
          <ActionButton
            onClick={async () => {
              await client.metadata({ type: `${kind}_add_source`, args: { name, configuration } });
              await refresh();
            }}
          >
            Add source
          </ActionButton>
        </div>
      </Section>
    </>
  );
}

function SourceEntities({ source }: { source: SourceEntry }) {
  const { client, refresh } = useConsole();
  const { catalog, error, reload } = useCatalog(source.name);
  const prefix = kindPrefix(source.kind);
  const tracked = (schema: string, name: string) => source.tables.some((t) => t.table.schema === schema && t.table.name === name);
  const trackedFn = (schema: string, name: string) => (source.functions ?? []).some((f) => f.function.schema === schema && f.function.name === name);
  const act = async (type: string, args: Record<string, unknown>) => {
    await client.metadata({ type: `${prefix}_${type}`, args: { source: source.name, ...args } });
    await Promise.all([refresh(), reload()]);
  };
  const untrackedTables = catalog?.tables.filter((t) => !tracked(t.schema, t.name)) ?? [];
  return (
    <>
      <h1>
        <a href={href('data')}>Data</a> / {source.name}
      </h1>
      <ErrorBox error={error} />
      <Section title="Tracked tables and views">
        {source.tables.length === 0 && <Empty>Nothing tracked yet.</Empty>}
        <ul className="entities">
          {source.tables.map((t) => (
            <li key={tableLabel(t.table)}>
              <a href={href('data', source.name, t.table.schema, t.table.name, 'browse')} data-testid={`table-${t.table.name}`}>
                {tableLabel(t.table)}
              </a>
              <ActionButton testId={`untrack-${t.table.name}`} onClick={() => act('untrack_table', { table: t.table, cascade: true })}>
                Untrack
              </ActionButton>
            </li>
          ))}
        </ul>
      </Section>
      <Section
        title="Untracked tables and views"
        actions={
          untrackedTables.length > 1 && (
            <ActionButton
              onClick={async () => {
                await client.bulk(untrackedTables.map((t) => ({ type: `${prefix}_track_table`, args: { source: source.name, table: { schema: t.schema, name: t.name } } })));
                await Promise.all([refresh(), reload()]);
              }}
            >
              Track all
            </ActionButton>
          )
        }
      >
        {!catalog && !error && <p>Reading the database…</p>}
        {catalog && untrackedTables.length === 0 && <Empty>Every table and view is tracked.</Empty>}
        <ul className="entities">
          {untrackedTables.map((t) => (
            <li key={`${t.schema}.${t.name}`}>
              {tableLabel(t)} <span className="muted">{t.kind}</span>
              <ActionButton testId={`track-${t.name}`} onClick={() => act('track_table', { table: { schema: t.schema, name: t.name } })}>
                Track
              </ActionButton>
            </li>
          ))}
        </ul>
      </Section>
      <Section title="Functions">
        <ul className="entities">
          {(source.functions ?? []).map((f) => (
            <li key={`${f.function.schema}.${f.function.name}`}>
              {tableLabel(f.function)} <span className="muted">tracked</span>
              <ActionButton onClick={() => act('untrack_function', { function: f.function })}>Untrack</ActionButton>
            </li>
          ))}
          {catalog?.functions
            .filter((f) => !trackedFn(f.schema, f.name))
            .map((f) => (
              <li key={`${f.schema}.${f.name}`}>
                {tableLabel(f)} <span className="muted">returns {f.returns}, {f.volatility}</span>
                <ActionButton testId={`track-function-${f.name}`} onClick={() => act('track_function', { function: { schema: f.schema, name: f.name } })}>
                  Track
                </ActionButton>
              </li>
            ))}
        </ul>
        {catalog && catalog.functions.length === 0 && (source.functions ?? []).length === 0 && <Empty>No functions in this database.</Empty>}
      </Section>
      <p>
        <button type="button" onClick={() => navigate('sql')}>
          Open the SQL page
        </button>
      </p>
    </>
  );
}
