/**
 * GraphQL error bodies: `{"errors":[{"extensions":{"path","code"},"message"}]}`, with the
 * database's detail in `extensions.internal` only for admins (or in dev mode). A remote schema's
 * own errors pass through as it sent them, beside `"data":null`; an action's errors come with
 * `"data":null` too.
 */
import { toEngineError } from '../../errors.js';

export function graphqlErrorJson(e: unknown, showInternal: boolean): { status: number; json: string } {
  const err = toEngineError(e);
  if (err.graphqlErrors) return { status: 200, json: JSON.stringify({ data: null, errors: err.graphqlErrors }) };
  // An action handler's own extensions are passed on as they came (no path, their code).
  const extensions: Record<string, unknown> = err.extensions ? { ...err.extensions } : { path: err.path, code: err.code };
  if (!err.extensions && showInternal && err.internal !== undefined) extensions['internal'] = err.internal;
  const errors = [{ extensions, message: err.message }];
  return { status: err.status, json: JSON.stringify(err.nullData ? { errors, data: null } : { errors }) };
}
