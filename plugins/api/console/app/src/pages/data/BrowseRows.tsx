/** Rows of a table through the GraphQL API (as admin): filters, sorting, paging, edit and delete. */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { DbTable } from '../../api/catalog';
import type { SourceEntry, TableEntry } from '../../api/metadata';
import { tableFields } from '../../api/naming';
import { useConsole } from '../../state';
import { ActionButton, Empty, ErrorBox } from '../../components/ui';
import { COMPARISON_OPS } from '../../api/operators';
import { cellText, deleteRow, editText, fetchRows, updateRow, type BrowseRequest, type Filter, type Row } from './rows';

const PAGE_SIZES = [10, 25, 50, 100];

export function BrowseRows({ source, entry, table }: { source: SourceEntry; entry: TableEntry; table: DbTable }) {
  const { client } = useConsole();
  const fields = useMemo(() => tableFields(source, entry), [source, entry]);
  const [filters, setFilters] = useState<Filter[]>([]);
  const [request, setRequest] = useState<BrowseRequest>({ filters: [], sort: null, limit: 10, offset: 0 });
  const [rows, setRows] = useState<Row[] | null>(null);
  const [count, setCount] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [editing, setEditing] = useState<number | null>(null);

  const load = useCallback(async () => {
    try {
      const r = await fetchRows(client, table, fields, request);
      setRows(r.rows);
      setCount(r.count);
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, [client, table, fields, request]);
  useEffect(() => {
    void load();
  }, [load]);

  const sortBy = (column: string) => {
    const direction = request.sort?.column === column && request.sort.direction === 'asc' ? 'desc' : 'asc';
    setRequest({ ...request, sort: { column, direction }, offset: 0 });
  };
  const canWrite = table.primaryKey.length > 0;

  return (
    <div className="browse">
      <div className="filters" data-testid="filters">
        {filters.map((f, i) => (
          <div className="row" key={i}>
            <select value={f.column} data-testid={`filter-column-${i}`} onChange={(e) => setFilters(filters.map((g, j) => (j === i ? { ...g, column: e.target.value } : g)))}>
              {table.columns.map((c) => (
                <option key={c.name}>{c.name}</option>
              ))}
            </select>
            <select value={f.op} data-testid={`filter-op-${i}`} onChange={(e) => setFilters(filters.map((g, j) => (j === i ? { ...g, op: e.target.value } : g)))}>
              {COMPARISON_OPS.map(([op, label]) => (
                <option key={op} value={op}>
                  {label}
                </option>
              ))}
            </select>
            <input value={f.value} data-testid={`filter-value-${i}`} onChange={(e) => setFilters(filters.map((g, j) => (j === i ? { ...g, value: e.target.value } : g)))} />
            <button type="button" className="link" onClick={() => setFilters(filters.filter((_, j) => j !== i))}>
              ✕
            </button>
          </div>
        ))}
        <div className="row">
          <button type="button" data-testid="filter-add" onClick={() => setFilters([...filters, { column: table.columns[0]?.name ?? '', op: '_eq', value: '' }])}>
            Add filter
          </button>
          <button type="button" data-testid="filter-apply" onClick={() => setRequest({ ...request, filters, offset: 0 })}>
            Apply filters
          </button>
        </div>
      </div>
      <ErrorBox error={error} />
      {!canWrite && <p className="muted">This table has no primary key: rows can be read here, changed on the SQL page.</p>}
      {rows && rows.length === 0 && <Empty>No rows.</Empty>}
      {rows && rows.length > 0 && (
        <table className="grid rows" data-testid="rows">
          <thead>
            <tr>
              {canWrite && <th />}
              {table.columns.map((c) => (
                <th key={c.name} onClick={() => sortBy(c.name)} className="sortable" data-testid={`sort-${c.name}`}>
                  {c.name}
                  {request.sort?.column === c.name ? (request.sort.direction === 'asc' ? ' ▲' : ' ▼') : ''}
                  <div className="muted">{c.type}</div>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) =>
              editing === i ? (
                <EditRow
                  key={i}
                  table={table}
                  row={row}
                  onCancel={() => setEditing(null)}
                  onSave={async (values) => {
                    await updateRow(client, table, fields, row, values);
                    setEditing(null);
                    await load();
                  }}
                />
              ) : (
                <tr key={i} data-testid={`row-${i}`}>
                  {canWrite && (
                    <td className="row-actions">
                      <button type="button" className="link" data-testid={`edit-row-${i}`} onClick={() => setEditing(i)}>
                        Edit
                      </button>
                      <ActionButton
                        danger
                        testId={`delete-row-${i}`}
                        confirm="Delete this row?"
                        onClick={async () => {
                          await deleteRow(client, table, fields, row);
                          await load();
                        }}
                      >
                        Delete
                      </ActionButton>
                    </td>
                  )}
                  {table.columns.map((c) => (
                    <td key={c.name} className={row[c.name] === null ? 'null' : undefined}>
                      {cellText(row[c.name])}
                    </td>
                  ))}
                </tr>
              ),
            )}
          </tbody>
        </table>
      )}
      <div className="pager">
        <button type="button" disabled={request.offset === 0} onClick={() => setRequest({ ...request, offset: Math.max(0, request.offset - request.limit) })}>
          ‹ Previous
        </button>
        <span data-testid="page-info">
          {rows ? `${rows.length === 0 ? 0 : request.offset + 1}–${request.offset + (rows?.length ?? 0)}` : ''}
          {count !== null ? ` of ${count}` : ''}
        </span>
        <button
          type="button"
          disabled={!rows || rows.length < request.limit || (count !== null && request.offset + request.limit >= count)}
          onClick={() => setRequest({ ...request, offset: request.offset + request.limit })}
        >
          Next ›
        </button>
        <select value={request.limit} onChange={(e) => setRequest({ ...request, limit: Number(e.target.value), offset: 0 })}>
          {PAGE_SIZES.map((n) => (
            <option key={n} value={n}>
              {n} per page
            </option>
          ))}
        </select>
      </div>
    </div>
  );
}

function EditRow({
  table,
  row,
  onSave,
  onCancel,
}: {
  table: DbTable;
  row: Row;
  onSave: (values: Record<string, string | null>) => Promise<void>;
  onCancel: () => void;
}) {
  const [values, setValues] = useState<Record<string, string | null>>(() => Object.fromEntries(table.columns.map((c) => [c.name, editText(row[c.name])])));
  const changed = () => Object.fromEntries(Object.entries(values).filter(([k, v]) => v !== editText(row[k])));
  return (
    <tr className="editing" data-testid="editing-row">
      <td className="row-actions">
        <ActionButton testId="save-row" onClick={() => onSave(changed())}>
          Save
        </ActionButton>
        <button type="button" className="link" onClick={onCancel}>
          Cancel
        </button>
      </td>
      {table.columns.map((c) => (
        <td key={c.name}>
          <input
            value={values[c.name] ?? ''}
            placeholder={values[c.name] === null ? 'NULL' : ''}
            data-testid={`edit-${c.name}`}
            onChange={(e) => setValues({ ...values, [c.name]: e.target.value })}
          />
          {c.nullable && (
            <label className="null-toggle">
              <input type="checkbox" checked={values[c.name] === null} onChange={(e) => setValues({ ...values, [c.name]: e.target.checked ? null : '' })} /> null
            </label>
          )}
        </td>
      ))}
    </tr>
  );
}
