/**
 * Permissions of one table: a role × operation grid, and an editor for one cell (row filter or
 * check, columns, presets, limit, aggregation). Saving drops the old permission and creates the
 * new one in one bulk request, so a failure leaves the old one in place; the engine's error is
 * shown next to the field its path names.
 */
import { useState } from 'react';
import type { DbTable } from '../../api/catalog';
import { ApiError } from '../../api/client';
import { PERMISSION_TYPES, kindPrefix, rolesOf, type Json, type JsonObject, type PermissionType, type SourceEntry, type TableEntry } from '../../api/metadata';
import { useConsole } from '../../state';
import { ActionButton, ErrorBox, errorAt } from '../../components/ui';

const FIELDS = ['filter', 'check', 'columns', 'set', 'limit', 'allow_aggregations'] as const;

/**
 * The permission field an engine error is about: the one its JSON path names, or else the one
 * holding the name the message quotes (the engine reports permission problems found while
 * resolving the metadata at `$.args`, naming the column or relationship).
 */
export function placeError(error: unknown, perm: JsonObject): string | null {
  if (!(error instanceof ApiError)) return null;
  for (const f of FIELDS) if (errorAt(error, `$.args.permission.${f}`)) return f;
  const detail = error.message.split(': ').pop() ?? '';
  const names = [...detail.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
  for (const name of names) {
    for (const f of FIELDS) {
      const v = perm[f];
      if (v !== undefined && JSON.stringify(v).includes(JSON.stringify(name))) return f;
    }
  }
  if (/\blimit\b|negative/.test(detail) && perm['limit'] !== undefined) return 'limit';
  if (/aggregat/.test(detail)) return 'allow_aggregations';
  return null;
}

import { BoolExpEditor } from '../../components/BoolExpEditor';
import { OperationButton } from '../../components/OperationButton';

type Access = 'full' | 'partial' | 'none';

function accessOf(type: PermissionType, p: JsonObject | undefined): Access {
  if (!p) return 'none';
  const rowsFree = (exp: Json | undefined) => exp === undefined || (typeof exp === 'object' && exp !== null && Object.keys(exp).length === 0);
  const exp = type === 'insert' ? p['check'] : p['filter'];
  const cols = p['columns'];
  const allCols = cols === '*' || type === 'delete';
  return rowsFree(exp) && allCols && (type !== 'select' || p['limit'] === undefined) ? 'full' : 'partial';
}

const SYMBOL: Record<Access, string> = { full: '✔', partial: '◐', none: '✕' };

export function Permissions({ source, entry, table }: { source: SourceEntry; entry: TableEntry; table: DbTable }) {
  const { metadata } = useConsole();
  const [extraRoles, setExtraRoles] = useState<string[]>([]);
  const [newRole, setNewRole] = useState('');
  const [selected, setSelected] = useState<{ role: string; type: PermissionType } | null>(null);
  const roles = [...new Set([...rolesOf(metadata).filter((r) => r !== 'admin'), ...extraRoles])];
  const permissionOf = (role: string, type: PermissionType) => entry[`${type}_permissions`]?.find((p) => p.role === role);
  return (
    <>
      <table className="grid permissions" data-testid="permission-grid">
        <thead>
          <tr>
            <th>Role</th>
            {PERMISSION_TYPES.map((t) => (
              <th key={t}>{t}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr>
            <td>admin</td>
            {PERMISSION_TYPES.map((t) => (
              <td key={t} className="full" title="admin has full access">
                {SYMBOL.full}
              </td>
            ))}
          </tr>
          {roles.map((role) => (
            <tr key={role}>
              <td>{role}</td>
              {PERMISSION_TYPES.map((type) => {
                const access = accessOf(type, permissionOf(role, type)?.permission);
                const active = selected?.role === role && selected.type === type;
                return (
                  <td key={type} className={`${access}${active ? ' active' : ''}`}>
                    <button type="button" className="cell" data-testid={`perm-${role}-${type}`} onClick={() => setSelected({ role, type })} title={`${role} ${type}: ${access}`}>
                      {SYMBOL[access]}
                    </button>
                  </td>
                );
              })}
            </tr>
          ))}
          <tr>
            <td colSpan={5}>
              <input placeholder="new role" value={newRole} data-testid="new-role" onChange={(e) => setNewRole(e.target.value)} />
              <button
                type="button"
                data-testid="add-role"
                disabled={!newRole.trim()}
                onClick={() => {
                  setExtraRoles([...extraRoles, newRole.trim()]);
                  setSelected({ role: newRole.trim(), type: 'select' });
                  setNewRole('');
                }}
              >
                Add role
              </button>
            </td>
          </tr>
        </tbody>
      </table>
      {selected && (
        <PermissionEditor
          key={`${selected.role}/${selected.type}`}
          source={source}
          entry={entry}
          table={table}
          role={selected.role}
          type={selected.type}
          existing={permissionOf(selected.role, selected.type)?.permission}
          comment={permissionOf(selected.role, selected.type)?.comment ?? null}
          onDone={() => setSelected(null)}
        />
      )}
    </>
  );
}

function PermissionEditor({
  source,
  entry,
  table,
  role,
  type,
  existing,
  comment,
  onDone,
}: {
  source: SourceEntry;
  entry: TableEntry;
  table: DbTable;
  role: string;
  type: PermissionType;
  existing: JsonObject | undefined;
  comment: string | null;
  onDone: () => void;
}) {
  const { client, refresh } = useConsole();
  const prefix = kindPrefix(source.kind);
  const [perm, setPerm] = useState<JsonObject>(() => existing ?? defaults(type));
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const columnNames = table.columns.map((c) => c.name);
  const cols = perm['columns'];
  const colSet = new Set(cols === '*' ? columnNames : Array.isArray(cols) ? (cols as string[]) : []);
  const presets = (perm['set'] as JsonObject | undefined) ?? {};
  const set = (key: string, value: Json | undefined) => {
    const next = { ...perm };
    if (value === undefined) delete next[key];
    else next[key] = value;
    setPerm(next);
  };
  const placed = placeError(error, perm);
  const fieldError = (key: string) =>
    placed === key && (
      <div className="field-error" data-testid={`field-error-${key}`}>
        {(error as Error).message}
      </div>
    );
  const placedElsewhere = placed !== null;

  const save = async () => {
    setError(null);
    setSaved(false);
    const ops = [];
    if (existing) ops.push({ type: `${prefix}_drop_${type}_permission`, args: { source: source.name, table: entry.table, role } });
    ops.push({ type: `${prefix}_create_${type}_permission`, args: { source: source.name, table: entry.table, role, permission: perm, ...(comment ? { comment } : {}) } });
    try {
      await client.bulk(ops);
      setSaved(true);
      await refresh();
    } catch (e) {
      setError(e);
    }
  };

  return (
    <div className="card permission-editor" data-testid="permission-editor">
      <header>
        <h2>
          {role} · {type}
        </h2>
        <button type="button" className="link" onClick={onDone}>
          Close
        </button>
      </header>
      {(type === 'select' || type === 'update' || type === 'delete') && (
        <fieldset>
          <legend>Row filter: rows this role may {type}</legend>
          <BoolExpEditor value={perm['filter']} columns={table.columns} onChange={(v) => set('filter', v)} testId="filter" />
          {fieldError('filter')}
        </fieldset>
      )}
      {(type === 'insert' || type === 'update') && (
        <fieldset>
          <legend>{type === 'insert' ? 'Check: each inserted row must satisfy' : 'Post-update check: each updated row must satisfy'}</legend>
          <BoolExpEditor value={perm['check']} columns={table.columns} onChange={(v) => set('check', v)} testId="check" />
          {fieldError('check')}
        </fieldset>
      )}
      {type !== 'delete' && (
        <fieldset>
          <legend>
            Columns{' '}
            <button type="button" className="link" onClick={() => set('columns', colSet.size === columnNames.length ? [] : '*')}>
              {colSet.size === columnNames.length ? 'none' : 'all'}
            </button>
          </legend>
          <div className="columns">
            {columnNames.map((c) => (
              <label key={c}>
                <input
                  type="checkbox"
                  checked={colSet.has(c)}
                  data-testid={`column-${c}`}
                  onChange={(e) => {
                    const next = new Set(colSet);
                    if (e.target.checked) next.add(c);
                    else next.delete(c);
                    set('columns', next.size === columnNames.length ? '*' : columnNames.filter((n) => next.has(n)));
                  }}
                />{' '}
                {c}
              </label>
            ))}
          </div>
          {fieldError('columns')}
        </fieldset>
      )}
      {(type === 'insert' || type === 'update') && (
        <fieldset>
          <legend>Column presets: values set by the engine (a value or a session variable)</legend>
          {Object.entries(presets).map(([col, value]) => (
            <div className="row" key={col}>
              <code>{col}</code> =
              <input
                value={typeof value === 'string' ? value : JSON.stringify(value)}
                data-testid={`preset-${col}`}
                onChange={(e) => set('set', { ...presets, [col]: e.target.value })}
              />
              <button type="button" className="link" onClick={() => {
                const next = { ...presets };
                delete next[col];
                set('set', Object.keys(next).length ? next : undefined);
              }}>
                ✕
              </button>
            </div>
          ))}
          <select
            value=""
            data-testid="preset-add"
            onChange={(e) => {
              if (e.target.value) set('set', { ...presets, [e.target.value]: '' });
            }}
          >
            <option value="">add a preset…</option>
            {columnNames.filter((c) => !(c in presets)).map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
          {fieldError('set')}
        </fieldset>
      )}
      {type === 'select' && (
        <fieldset>
          <legend>Limits and aggregation</legend>
          <label>
            Row limit{' '}
            <input
              type="number"
              min={0}
              value={typeof perm['limit'] === 'number' ? perm['limit'] : ''}
              data-testid="limit"
              onChange={(e) => set('limit', e.target.value === '' ? undefined : Number(e.target.value))}
            />
          </label>
          {fieldError('limit')}
          <label>
            <input type="checkbox" checked={perm['allow_aggregations'] === true} data-testid="allow-aggregations" onChange={(e) => set('allow_aggregations', e.target.checked || undefined)} /> allow aggregation queries
          </label>
          {fieldError('allow_aggregations')}
        </fieldset>
      )}
      <div className="row">
        <ActionButton testId="save-permission" onClick={save}>
          Save permission
        </ActionButton>
        {existing && (
          <OperationButton
            danger
            testId="delete-permission"
            confirm={`Delete the ${type} permission of ${role}?`}
            op={{ type: `${prefix}_drop_${type}_permission`, args: { source: source.name, table: entry.table, role } }}
            onDone={onDone}
          >
            Delete permission
          </OperationButton>
        )}
        {saved && <span className="saved" data-testid="permission-saved">Saved.</span>}
      </div>
      {error !== null && !placedElsewhere && <ErrorBox error={error} testId="permission-error" />}
      <details>
        <summary>As JSON</summary>
        <pre>{JSON.stringify(perm, null, 2)}</pre>
      </details>
    </div>
  );
}

function defaults(type: PermissionType): JsonObject {
  switch (type) {
    case 'select':
      return { columns: [], filter: {} };
    case 'insert':
      return { columns: [], check: {} };
    case 'update':
      return { columns: [], filter: {} };
    case 'delete':
      return { filter: {} };
  }
}
