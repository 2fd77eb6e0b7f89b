/**
 * SQL on run_sql (/v2/query): the source, `cascade`, `read_only` and
 * `check_metadata_consistency` as the spec defines them; the result table, or the error with
 * the metadata objects that depend on what the SQL would change.
 */
import { useState } from 'react';
import { ApiError, type RunSqlResult } from '../../api/client';
import { useConsole } from '../../state';
import { ActionButton, ErrorBox, Success } from '../../components/ui';

export function RawSqlPage() {
  const { client, metadata, refresh } = useConsole();
  const [sql, setSql] = useState('');
  const [source, setSource] = useState('default');
  const [cascade, setCascade] = useState(false);
  const [readOnly, setReadOnly] = useState(false);
  const [checkConsistency, setCheckConsistency] = useState(true);
  const [result, setResult] = useState<RunSqlResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  /** Set after SQL that ran without the metadata check: the engine has not re-read the schema. */
  const [unchecked, setUnchecked] = useState(false);
  const run = async () => {
    setError(null);
    setResult(null);
    setUnchecked(false);
    try {
      setResult(
        await client.runSql({
          sql,
          source,
          cascade,
          read_only: readOnly,
          ...(checkConsistency ? {} : { check_metadata_consistency: false }),
        }),
      );
      setUnchecked(!checkConsistency && !readOnly);
    } catch (e) {
      setError(e);
    }
    // A change to the database may have made metadata inconsistent, or fixed it.
    if (!readOnly) await refresh();
  };
  const [header, ...rows] = result?.result ?? [];
  return (
    <div className="sql-page">
      <h1>SQL</h1>
      <textarea
        className="sql-input"
        rows={10}
        spellCheck={false}
        value={sql}
        data-testid="sql"
        placeholder="select * from ..."
        onChange={(e) => setSql(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) void run();
        }}
      />
      <div className="row options">
        <label>
          Source
          <select value={source} onChange={(e) => setSource(e.target.value)}>
            {(metadata?.sources ?? []).map((s) => (
              <option key={s.name}>{s.name}</option>
            ))}
          </select>
        </label>
        <label title="drop the metadata objects (relationships, permissions…) that depend on what the SQL removes">
          <input type="checkbox" checked={cascade} data-testid="sql-cascade" onChange={(e) => setCascade(e.target.checked)} /> cascade metadata
        </label>
        <label title="run in a read-only transaction; the schema is not reloaded">
          <input type="checkbox" checked={readOnly} data-testid="sql-read-only" onChange={(e) => setReadOnly(e.target.checked)} /> read only
        </label>
        <label title="when off, the SQL runs without checking what in the metadata depends on it">
          <input type="checkbox" checked={checkConsistency} data-testid="sql-check-consistency" onChange={(e) => setCheckConsistency(e.target.checked)} /> check metadata consistency
        </label>
        <ActionButton testId="run-sql" onClick={run} disabled={!sql.trim()}>
          Run (Ctrl+Enter)
        </ActionButton>
      </div>
      <ErrorBox error={error} testId="sql-error" />
      {error instanceof ApiError && error.code === 'dependency-error' && !cascade && (
        <p className="muted">Tick “cascade metadata” to drop those objects from the metadata along with the change, or change them first.</p>
      )}
      {result && result.result_type === 'CommandOk' && <Success>Done.</Success>}
      {unchecked && (
        <div className="notice row">
          The SQL ran without the metadata check, so the engine has not re-read the database: the metadata may now point at things that are gone.
          <ActionButton
            testId="reload-after-sql"
            onClick={async () => {
              await client.metadata({ type: 'reload_metadata', args: { reload_sources: [source], reload_remote_schemas: false } });
              await refresh();
              setUnchecked(false);
            }}
          >
            Reload metadata
          </ActionButton>
        </div>
      )}
      {header && (
        <table className="grid" data-testid="sql-result">
          <thead>
            <tr>
              {header.map((h, i) => (
                <th key={i}>{h}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i}>
                {r.map((v, j) => (
                  <td key={j} className={v === null ? 'null' : undefined}>
                    {v ?? 'NULL'}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
