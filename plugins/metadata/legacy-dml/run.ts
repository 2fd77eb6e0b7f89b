/**
 * Running legacy DML IR through the source's database plugin, exactly as GraphQL root fields
 * run: a read is one compiled statement, a write a compiled mutation in its own transaction
 * (with the session as `svc.user`). The session variables the permissions read are checked
 * first, with the reference's message for this API.
 */
import {
  bindParams,
  EngineError,
  type MutationIR,
  type RootFieldIR,
  sessionVariablesOf,
  sessionVariablesOfQuery,
} from '../../../core/sdk/index.js';
import { ARGS, type DmlContext } from './target.js';

function requireSession(dc: DmlContext, names: readonly string[]): void {
  for (const name of names) {
    if (dc.session.variables[name] === undefined) {
      throw new EngineError('not-found', `"${name}" header is expected but not found`, { status: 400, path: ARGS });
    }
  }
}

/** Runs a read; returns the database's JSON text. */
export async function runQueryIR(dc: DmlContext, ir: RootFieldIR): Promise<string> {
  requireSession(dc, sessionVariablesOfQuery(ir));
  const conn = dc.source.connection;
  const statement = conn.compileQuery(ir, { stringifyNumericTypes: dc.stringifyNumericTypes });
  const values = bindParams(statement.params, {}, dc.session);
  return conn.runQuery(statement, JSON.stringify(dc.session.variables), values);
}

/** Runs one write in its own transaction; returns the answer's JSON text. */
export async function runMutationIR(dc: DmlContext, ir: MutationIR): Promise<string> {
  requireSession(dc, sessionVariablesOf(ir));
  const conn = dc.source.connection;
  if (!conn.compileMutation || !conn.runMutations) {
    throw new EngineError('not-supported', `source "${dc.source.name}" does not support writes`, { path: ARGS });
  }
  const mutation = conn.compileMutation(ir, { stringifyNumericTypes: dc.stringifyNumericTypes });
  const [out] = await conn.runMutations([{ mutation, values: bindParams(mutation.params, {}, dc.session) }], JSON.stringify(dc.session.variables));
  return out ?? 'null';
}
