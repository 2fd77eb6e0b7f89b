/**
 * GraphQL error bodies: `{"errors":[{"extensions":{"path","code"},"message"}]}`, with the
 * database's detail in `extensions.internal` only for admins (or in dev mode).
 */
import { toEngineError } from '../../http/error-response.js';

export function graphqlErrorJson(e: unknown, showInternal: boolean): { status: number; json: string } {
  const err = toEngineError(e);
  const extensions: Record<string, unknown> = { path: err.path, code: err.code };
  if (showInternal && err.internal !== undefined) extensions['internal'] = err.internal;
  return { status: err.status, json: JSON.stringify({ errors: [{ extensions, message: err.message }] }) };
}
