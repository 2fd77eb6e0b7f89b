/**
 * A table's relationships: the ones in metadata (drop, rename), suggestions from the database's
 * foreign keys in both directions (object relationship along this table's keys, array
 * relationship along keys that point here), and a manual one given as JSON `using`.
 */
import { useState } from 'react';
import type { DbCatalog, DbForeignKey } from '../../api/catalog';
import { findTable, kindPrefix, sameTable, tableLabel, type Json, type SourceEntry, type TableEntry } from '../../api/metadata';
import { useConsole } from '../../state';
import { ActionButton, Empty, JsonField, Section } from '../../components/ui';
import { OperationButton } from '../../components/OperationButton';

interface Suggestion {
  kind: 'object' | 'array';
  name: string;
  fk: DbForeignKey;
  using: Record<string, unknown>;
  /** The other table must be tracked for the relationship to resolve. */
  otherTracked: boolean;
}

const plural = (name: string): string => (name.endsWith('s') ? name : `${name}s`);

function suggestions(entry: TableEntry, catalog: DbCatalog, taken: Set<string>, tracked: (t: { schema: string; name: string }) => boolean): Suggestion[] {
  const out: Suggestion[] = [];
  const existingUsing = new Set(
    [...(entry.object_relationships ?? []), ...(entry.array_relationships ?? [])].map((r) => JSON.stringify(r.using)),
  );
  const free = (base: string) => {
    let name = base;
    for (let i = 2; taken.has(name); i += 1) name = `${base}${i}`;
    taken.add(name);
    return name;
  };
  for (const fk of catalog.foreignKeys) {
    if (sameTable(fk.from, entry.table)) {
      const using = { foreign_key_constraint_on: fk.fromColumns.length === 1 ? fk.fromColumns[0]! : fk.fromColumns };
      const usingCols = { foreign_key_constraint_on: fk.fromColumns };
      if (existingUsing.has(JSON.stringify(using)) || existingUsing.has(JSON.stringify(usingCols))) continue;
      out.push({ kind: 'object', name: free(fk.to.name.replace(/s$/, '')), fk, using, otherTracked: tracked(fk.to) });
    }
    if (sameTable(fk.to, entry.table)) {
      const using = { foreign_key_constraint_on: { table: fk.from, columns: fk.fromColumns } };
      const legacy = { foreign_key_constraint_on: { table: fk.from, column: fk.fromColumns[0] } };
      if (existingUsing.has(JSON.stringify(using)) || existingUsing.has(JSON.stringify(legacy))) continue;
      out.push({ kind: 'array', name: free(plural(fk.from.name)), fk, using, otherTracked: tracked(fk.from) });
    }
  }
  return out;
}

export function Relationships({ source, entry, catalog, onChanged }: { source: SourceEntry; entry: TableEntry; catalog: DbCatalog; onChanged: () => Promise<void> }) {
  const { client, metadata, refresh } = useConsole();
  const prefix = kindPrefix(source.kind);
  const existing = [
    ...(entry.object_relationships ?? []).map((r) => ({ ...r, kind: 'object' as const })),
    ...(entry.array_relationships ?? []).map((r) => ({ ...r, kind: 'array' as const })),
  ];
  const taken = new Set([...existing.map((r) => r.name), ...(catalog.tables.find((t) => sameTable(t, entry.table))?.columns.map((c) => c.name) ?? [])]);
  const tracked = (t: { schema: string; name: string }) => !!findTable(metadata, source.name, t);
  const suggested = suggestions(entry, catalog, taken, tracked);
  const [names, setNames] = useState<Record<string, string>>({});
  const [manual, setManual] = useState<{ name: string; kind: 'object' | 'array'; using: Json }>({
    name: '',
    kind: 'object',
    using: { manual_configuration: { remote_table: { schema: 'public', name: '' }, column_mapping: {} } },
  });
  const create = async (kind: 'object' | 'array', name: string, using: unknown) => {
    await client.metadata({ type: `${prefix}_create_${kind}_relationship`, args: { source: source.name, table: entry.table, name, using } });
    await refresh();
    await onChanged();
  };
  return (
    <>
      <Section title="Relationships">
        {existing.length === 0 && <Empty>No relationships yet.</Empty>}
        <table className="grid">
          <tbody>
            {existing.map((r) => (
              <tr key={r.name} data-testid={`relationship-${r.name}`}>
                <td>
                  <b>{r.name}</b>
                </td>
                <td>{r.kind}</td>
                <td>
                  <code>{JSON.stringify(r.using)}</code>
                </td>
                <td>
                  <OperationButton
                    danger
                    confirm={`Drop relationship ${r.name}? Permissions that use it are dropped too.`}
                    op={{ type: `${prefix}_drop_relationship`, args: { source: source.name, table: entry.table, relationship: r.name, cascade: true } }}
                  >
                    Drop
                  </OperationButton>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
      <Section title="Suggested from foreign keys">
        {suggested.length === 0 && <Empty>No foreign key suggests a relationship that is not there yet.</Empty>}
        <table className="grid">
          <tbody>
            {suggested.map((s) => {
              const key = `${s.kind}:${s.fk.constraint}:${tableLabel(s.fk.from)}`;
              const name = names[key] ?? s.name;
              return (
                <tr key={key} data-testid={`suggestion-${s.kind}-${s.kind === 'object' ? s.fk.to.name : s.fk.from.name}`}>
                  <td>{s.kind}</td>
                  <td>
                    {tableLabel(s.fk.from)} ({s.fk.fromColumns.join(', ')}) → {tableLabel(s.fk.to)} ({s.fk.toColumns.join(', ')})
                  </td>
                  <td>
                    <input value={name} aria-label="relationship name" onChange={(e) => setNames({ ...names, [key]: e.target.value })} />
                  </td>
                  <td>
                    {s.otherTracked ? (
                      <ActionButton testId="add-relationship" onClick={() => create(s.kind, name, s.using)}>
                        Add
                      </ActionButton>
                    ) : (
                      <span className="muted">track {tableLabel(s.kind === 'object' ? s.fk.to : s.fk.from)} first</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </Section>
      <Section title="Add a relationship by hand">
        <div className="form">
          <label>
            Name <input value={manual.name} onChange={(e) => setManual({ ...manual, name: e.target.value })} />
          </label>
          <label>
            Kind
            <select value={manual.kind} onChange={(e) => setManual({ ...manual, kind: e.target.value as 'object' | 'array' })}>
              <option value="object">object</option>
              <option value="array">array</option>
            </select>
          </label>
          <label>
            using
            <JsonField value={manual.using} onChange={(using) => setManual({ ...manual, using })} />
          </label>
          <ActionButton onClick={() => create(manual.kind, manual.name, manual.using)}>Add relationship</ActionButton>
        </div>
      </Section>
    </>
  );
}
