/**
 * Keeps one SourceConnection per source for as long as its configuration is unchanged, so
 * schema-cache rebuilds reuse pools and prepared statements instead of reconnecting, and the last
 * catalog read through it, reused while the database says its catalog has not changed.
 */
import type { DatabaseCatalog } from '../db/catalog.js';
import type { DatabaseKind, SourceConnection } from '../db/contract.js';
import { tableKey } from '../db/catalog.js';
import { jsonValuesEqual } from '../json-type.js';

interface Entry {
  fingerprint: string;
  connection: SourceConnection;
  /** The last introspection, with the catalog fingerprint read just before it. */
  catalog?: { token: string; catalog: DatabaseCatalog };
}

export class SourceConnections {
  private readonly entries = new Map<string, Entry>();

  get(name: string, kind: DatabaseKind, configuration: unknown): SourceConnection {
    const fingerprint = `${kind.kind}:${JSON.stringify(configuration)}`;
    const existing = this.entries.get(name);
    if (existing && existing.fingerprint === fingerprint) return existing.connection;
    if (existing) void existing.connection.close().catch(() => {});
    const connection = kind.connect(name, configuration);
    this.entries.set(name, { fingerprint, connection });
    return connection;
  }

  /**
   * The source's catalog. Introspecting 1,000 tables costs hundreds of milliseconds of database
   * time on every metadata operation; when the kind offers `catalogFingerprint` and it is the one
   * read before the last introspection, that catalog is answered instead; when it moved and the
   * kind offers `refreshCatalog`, only what changed is read into the last catalog. `fresh` always
   * introspects whole (reload_metadata, run_sql): what the user asked to re-read is re-read.
   */
  async catalog(name: string, connection: SourceConnection, fresh: boolean): Promise<DatabaseCatalog> {
    const entry = this.entries.get(name);
    const mine = entry?.connection === connection ? entry : undefined;
    if (!mine || !connection.catalogFingerprint) return connection.introspect();
    // Read before introspecting: a change in between makes the next token differ, never match.
    const token = await connection.catalogFingerprint();
    if (!fresh && mine.catalog?.token === token) return mine.catalog.catalog;
    const refreshed =
      !fresh && mine.catalog && connection.refreshCatalog ? await connection.refreshCatalog(mine.catalog.catalog, mine.catalog.token, token) : null;
    const introspected = refreshed ?? (await connection.introspect());
    const catalog = mine.catalog ? withUnchangedEntriesOf(mine.catalog.catalog, introspected) : introspected;
    mine.catalog = { token, catalog };
    return catalog;
  }

  /** The open connections by source name. */
  *open(): IterableIterator<[string, SourceConnection]> {
    for (const [name, entry] of this.entries) yield [name, entry.connection];
  }

  /** Closes connections of sources that are no longer in the metadata. */
  async retain(names: ReadonlySet<string>): Promise<void> {
    const closing: Promise<void>[] = [];
    for (const [name, entry] of this.entries) {
      if (names.has(name)) continue;
      this.entries.delete(name);
      closing.push(entry.connection.close().catch(() => {}));
    }
    await Promise.all(closing);
  }

  async closeAll(): Promise<void> {
    await this.retain(new Set());
  }
}

/**
 * `next` with each table and function entry equal to one of `previous` replaced by that one.
 * After a whole introspection (a fresh read, or a change a kind cannot confine), keeping the
 * unchanged entries' identity lets the resolve step reuse what it derived from them (the
 * permission memo compares catalog entries by identity).
 */
export function withUnchangedEntriesOf(previous: DatabaseCatalog, next: DatabaseCatalog): DatabaseCatalog {
  return { ...next, tables: keepUnchanged(previous.tables, next.tables), functions: keepUnchanged(previous.functions, next.functions) };
}

/**
 * `next` with each entry equal to an entry of `previous` of the same key replaced by it. A refresh
 * (catalog-refresh.ts) hands most entries on as they were: only the others are compared.
 */
function keepUnchanged<T extends { schema: string; name: string }>(previous: readonly T[], next: T[]): T[] {
  const kept = new Set(next);
  const byKey = new Map<string, T[]>();
  for (const old of previous) {
    if (kept.has(old)) continue;
    const key = tableKey(old);
    const list = byKey.get(key);
    if (list) list.push(old);
    else byKey.set(key, [old]);
  }
  if (byKey.size === 0) return next;
  const before = new Set(previous);
  return next.map((entry) => (before.has(entry) ? entry : (byKey.get(tableKey(entry))?.find((old) => jsonValuesEqual(old, entry)) ?? entry)));
}
