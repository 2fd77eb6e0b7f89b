/**
 * Watches every statement error PostgreSQL sends back to the engine running in this process, by
 * wrapping pg's Client#query (the engine's own driver module): the fuzzer's "no SQL syntax error
 * ever reaches PostgreSQL" property is checked at the driver, for every role, not only where an
 * admin's error response happens to show the SQLSTATE. Nothing is changed: results and errors pass
 * through untouched.
 */
import pg from 'pg';

export interface StatementError {
  code: string;
  message: string;
  statement: string;
}

type Listener = (e: StatementError) => void;

let listener: Listener | undefined;
let original: ((...args: unknown[]) => unknown) | undefined;

function statementText(args: unknown[]): string {
  const first = args[0];
  if (typeof first === 'string') return first;
  if (first && typeof first === 'object' && typeof (first as { text?: unknown }).text === 'string') return (first as { text: string }).text;
  return '';
}

/**
 * The engine's hot paths send submittables (a one-trip pipeline, a JSON-text read) whose errors
 * never reach a promise of `query`: their `handleError`, which pg calls with the server's error,
 * is wrapped on the object itself. A pipeline names its statements in `steps`, the failing one at
 * `step`.
 */
interface TappableSubmittable {
  submit: unknown;
  handleError?: (err: unknown, ...rest: unknown[]) => unknown;
  text?: unknown;
  steps?: ReadonlyArray<{ text: string }>;
  step?: number;
}

function tapSubmittable(query: unknown): void {
  const q = query as TappableSubmittable | null;
  if (!q || typeof q !== 'object' || typeof q.submit !== 'function' || typeof q.handleError !== 'function') return;
  const handle = q.handleError;
  q.handleError = function tappedHandleError(this: TappableSubmittable, err: unknown, ...rest: unknown[]): unknown {
    if (err instanceof pg.DatabaseError && err.code) {
      const statement = typeof q.text === 'string' ? q.text : (q.steps?.[q.step ?? 0]?.text ?? '');
      listener?.({ code: err.code, message: err.message, statement });
    }
    return handle.call(this, err, ...rest);
  };
}

export function tapStatementErrors(onError: Listener): void {
  listener = onError;
  if (original) return;
  const base = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  original = base;
  (pg.Client.prototype as unknown as { query: unknown }).query = function tappedQuery(this: pg.Client, ...args: unknown[]): unknown {
    tapSubmittable(args[0]);
    const result = base.apply(this, args);
    if (result instanceof Promise) {
      result.catch((err: unknown) => {
        if (err instanceof pg.DatabaseError && err.code) listener?.({ code: err.code, message: err.message, statement: statementText(args) });
      });
    }
    return result;
  };
}

export function untapStatementErrors(): void {
  if (original) (pg.Client.prototype as unknown as { query: unknown }).query = original;
  original = undefined;
  listener = undefined;
}
