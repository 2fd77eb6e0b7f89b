/**
 * Per-snapshot memos: what a plugin derives from a schema-cache snapshot (its parsed part of the
 * metadata, a lookup table) is computed once per snapshot and dropped with it, so request-time
 * code pays a WeakMap lookup, never a parse.
 */
import type { SchemaCache } from './cache.js';

export function perSnapshot<T>(derive: (cache: SchemaCache) => T): (cache: SchemaCache) => T {
  const memo = new WeakMap<SchemaCache, T>();
  return (cache) => {
    let value = memo.get(cache);
    if (value === undefined && !memo.has(cache)) {
      value = derive(cache);
      memo.set(cache, value);
    }
    return value as T;
  };
}
