/** Query parameters written as Standard SQL literals, for the explain API only (never for running). */
import type { QueryParameter } from '../client.js';

const quoteString = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`;

function literal(type: string, v: string | null): string {
  if (v === null) return `CAST(NULL AS ${type})`;
  switch (type) {
    case 'INT64':
    case 'FLOAT64':
      return /^[+-]?[\d.eE+-]+$/.test(v) ? v : `CAST(${quoteString(v)} AS ${type})`;
    case 'BOOL':
      return v === 'true' ? 'TRUE' : 'FALSE';
    case 'STRING':
      return quoteString(v);
    default:
      return `${type} ${quoteString(v)}`;
  }
}

export function inlineParams(sql: string, params: Readonly<Record<string, QueryParameter>>): string {
  return sql.replace(/@(p\d+)\b/g, (m, name: string) => {
    const p = params[name];
    if (p === undefined) return m;
    if (Array.isArray(p.type)) {
      const t = p.type[0];
      return p.value === null ? `CAST(NULL AS ARRAY<${t}>)` : `[${(p.value as string[]).map((x) => literal(t, x)).join(', ')}]`;
    }
    return literal(p.type, p.value as string | null);
  });
}
