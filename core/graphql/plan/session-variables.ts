/**
 * The session variables a read root field needs. Compiled SQL reads them out of the session JSON,
 * where a missing one would quietly be NULL (and a null-safe permission comparison could then
 * match rows whose column is NULL); the reference engine refuses the request instead, so the
 * executor checks this list before running the statement.
 */
import { EngineError } from '../../errors.js';
import type { Session } from '../../auth/session.js';
import type { RootFieldIR } from '../ir.js';
import { IrReadsWalker } from '../ir-reads.js';

/** Every session variable the root field reads, lower-cased and sorted. */
export function sessionVariablesOfQuery(ir: RootFieldIR): string[] {
  const walker = new IrReadsWalker();
  walker.root(ir);
  return [...walker.session].sort();
}

/** `not-found` "missing session variable: \"x-svc-user-id\"" for the first one the session lacks. */
export function requireSessionVariables(names: readonly string[] | undefined, session: Session): void {
  for (const name of names ?? []) {
    if (session.variables[name] === undefined) throw new EngineError('not-found', `missing session variable: "${name}"`, { path: '$' });
  }
}
