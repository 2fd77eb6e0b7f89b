/** Inserts one row through the GraphQL API; a field left empty takes the column's default. */
import { useMemo, useState } from 'react';
import type { DbTable } from '../../api/catalog';
import type { SourceEntry, TableEntry } from '../../api/metadata';
import { tableFields } from '../../api/naming';
import { useConsole } from '../../state';
import { ActionButton, Success } from '../../components/ui';
import { cellText, insertRow, type Row } from './rows';

export function InsertRow({ source, entry, table }: { source: SourceEntry; entry: TableEntry; table: DbTable }) {
  const { client } = useConsole();
  const fields = useMemo(() => tableFields(source, entry), [source, entry]);
  const [values, setValues] = useState<Record<string, string>>({});
  const [nulls, setNulls] = useState<Record<string, boolean>>({});
  const [inserted, setInserted] = useState<Row | null>(null);
  return (
    <div className="form">
      {table.columns.map((c) => (
        <label key={c.name}>
          <span>
            {c.name} <span className="muted">{c.type}{c.hasDefault ? ', has default' : ''}{c.nullable ? ', nullable' : ''}</span>
          </span>
          <input
            value={values[c.name] ?? ''}
            disabled={nulls[c.name]}
            data-testid={`insert-${c.name}`}
            placeholder={c.hasDefault ? 'default' : ''}
            onChange={(e) => setValues({ ...values, [c.name]: e.target.value })}
          />
          {c.nullable && (
            <span className="null-toggle">
              <input type="checkbox" checked={!!nulls[c.name]} onChange={(e) => setNulls({ ...nulls, [c.name]: e.target.checked })} /> null
            </span>
          )}
        </label>
      ))}
      <ActionButton
        testId="insert-row"
        onClick={async () => {
          const given: Record<string, string | null> = {};
          for (const c of table.columns) {
            if (nulls[c.name]) given[c.name] = null;
            else if ((values[c.name] ?? '') !== '') given[c.name] = values[c.name]!;
          }
          setInserted(await insertRow(client, table, fields, given));
          setValues({});
          setNulls({});
        }}
      >
        Insert
      </ActionButton>
      {inserted && <Success>Inserted {Object.entries(inserted).map(([k, v]) => `${k} = ${cellText(v)}`).join(', ')}</Success>}
    </div>
  );
}
