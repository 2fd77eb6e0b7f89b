/**
 * Global ids and cursors as the reference engine writes them: base64 of JSON text. Ids are the
 * version-1 array `[1, "<schema>", "<table>", <pk value>, ...]`; cursors the object of a row's
 * order-by values. The database encodes them (the values are the row's); here they are decoded.
 */

export interface DecodedNodeId {
  schema: string;
  name: string;
  values: unknown[];
}

/** The JSON a base64 text holds; null when it is not base64 of JSON. */
export function decodeBase64Json(text: string): { value: unknown } | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text.replace(/\s/g, ''))) return null;
  try {
    return { value: JSON.parse(Buffer.from(text, 'base64').toString('utf8')) as unknown };
  } catch {
    return null;
  }
}

/** A node id, or the reason it is not one (the reference's wording). */
export function decodeNodeId(text: string): DecodedNodeId | { error: string } {
  const decoded = decodeBase64Json(text);
  if (!decoded) return { error: 'the node id is not base64-encoded JSON' };
  const v = decoded.value;
  if (!Array.isArray(v)) return { error: 'parsing node id failed, expected Array' };
  if (v.length === 0) return { error: 'unexpected GUID format, found empty list' };
  const [version, schema, name, ...values] = v as unknown[];
  if (typeof version !== 'number') return { error: 'unexpected GUID format, needs to start with a version number' };
  if (version !== 1) return { error: `unsupported GUID version: ${version}` };
  if (typeof schema !== 'string' || typeof name !== 'string' || values.length === 0) {
    return { error: 'GUID version 1: expecting schema name, table name and at least one column value' };
  }
  return { schema, name, values };
}

/** The base64 text of a JSON value, as the database writes it (for tests and clients). */
export function encodeBase64Json(json: string): string {
  return Buffer.from(json, 'utf8').toString('base64');
}
