/**
 * Small building blocks shared by the pages: error display (the engine's code, message, path and
 * the dependent objects it reports), a JSON text field that checks its text, tables and buttons
 * that show a request in flight.
 */
import { useState, type ReactNode } from 'react';
import { ApiError } from '../api/client';
import type { Json } from '../api/metadata';

export function ErrorBox({ error, testId }: { error: unknown; testId?: string }) {
  if (error === null || error === undefined) return null;
  const e = error instanceof ApiError ? error : null;
  const message = e ? e.message : error instanceof Error ? error.message : String(error);
  const internal = e?.internal;
  return (
    <div className="error" role="alert" data-testid={testId ?? 'error'}>
      <div>
        {e && <span className="code">{e.code}</span>} {message}
      </div>
      {e && e.path !== '$' && <div className="path">at {e.path}</div>}
      {internal !== undefined && internal !== null && <Dependents internal={internal} />}
    </div>
  );
}

/** The `internal` of an error: dependent objects (run_sql, drops) or database detail. */
function Dependents({ internal }: { internal: unknown }) {
  const list = Array.isArray(internal) ? internal : null;
  if (list && list.every((x) => typeof x === 'object' && x !== null && 'reason' in x)) {
    return (
      <ul className="dependents">
        {list.map((o, i) => {
          const obj = o as { type?: string; name?: string; reason: string };
          return (
            <li key={i}>
              <b>{obj.type}</b> {obj.name} — {obj.reason}
            </li>
          );
        })}
      </ul>
    );
  }
  return <pre className="internal">{JSON.stringify(internal, null, 2)}</pre>;
}

export function Success({ children }: { children: ReactNode }) {
  return (
    <div className="success" role="status">
      {children}
    </div>
  );
}

/** A button that runs an async action, shows it is busy, and reports its error beside itself. */
export function ActionButton({
  onClick,
  children,
  danger,
  confirm,
  testId,
  disabled,
}: {
  onClick: () => Promise<unknown>;
  children: ReactNode;
  danger?: boolean;
  confirm?: string;
  testId?: string;
  disabled?: boolean;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <span className="action">
      <button
        type="button"
        className={danger ? 'danger' : undefined}
        disabled={busy || disabled}
        data-testid={testId}
        onClick={async () => {
          if (confirm && !window.confirm(confirm)) return;
          setBusy(true);
          setError(null);
          try {
            await onClick();
          } catch (e) {
            setError(e);
          } finally {
            setBusy(false);
          }
        }}
      >
        {busy ? '…' : children}
      </button>
      <ErrorBox error={error} />
    </span>
  );
}

/** A textarea holding JSON; `onChange` gets the parsed value, or an error while the text is not JSON. */
export function JsonField({
  value,
  onChange,
  rows = 6,
  testId,
  label,
}: {
  value: Json | undefined;
  onChange: (v: Json) => void;
  rows?: number;
  testId?: string;
  label?: string;
}) {
  const [text, setText] = useState(() => JSON.stringify(value ?? null, null, 2));
  const [bad, setBad] = useState<string | null>(null);
  return (
    <div className="json-field">
      <textarea
        aria-label={label}
        rows={rows}
        spellCheck={false}
        value={text}
        data-testid={testId}
        onChange={(e) => {
          setText(e.target.value);
          try {
            onChange(JSON.parse(e.target.value) as Json);
            setBad(null);
          } catch (err) {
            setBad((err as Error).message);
          }
        }}
      />
      {bad && <div className="field-error">not JSON: {bad}</div>}
    </div>
  );
}

export function Section({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className="card">
      <header>
        <h2>{title}</h2>
        <div className="card-actions">{actions}</div>
      </header>
      {children}
    </section>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** The error's text if its JSON path points into `prefix` (e.g. `$.args.permission.filter`). */
export function errorAt(error: unknown, ...prefixes: string[]): string | null {
  if (!(error instanceof ApiError)) return null;
  const path = error.path.replace(/^\$\.args\[\d+\]\.args/, '$.args');
  return prefixes.some((p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`)) ? error.message : null;
}
