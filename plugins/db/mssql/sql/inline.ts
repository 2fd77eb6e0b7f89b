/**
 * A statement with its parameters written as T-SQL literals, for the explain API only (never
 * run): numbers as written, strings as N'..' with quotes doubled, booleans 1/0, dates as ISO text.
 */
export function inlineValues(text: string, params: readonly unknown[]): string {
  return text.replace(/@p(\d+)\b/g, (_m, n: string) => literal(params[Number(n)]));
}

function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (v instanceof Date) return `N'${v.toISOString()}'`;
  if (Buffer.isBuffer(v)) return `0x${v.toString('hex')}`;
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return `N'${s.replace(/'/g, "''")}'`;
}
