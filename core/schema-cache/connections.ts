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
  const tables = new Map(previous.tables.map((t) => [tableKey(t), t] as const));
  const functions = new Map<string, DatabaseCatalog['functions']>();
  for (const f of previous.functions) {
    const key = tableKey(f);
    functions.set(key, [...(functions.get(key) ?? []), f]);
  }
  return {
    ...next,
    tables: next.tables.map((t) => {
      const old = tables.get(tableKey(t));
      return old && jsonValuesEqual(old, t) ? old : t;
    }),
    functions: next.functions.map((f) => functions.get(tableKey(f))?.find((old) => jsonValuesEqual(old, f)) ?? f),
  };
}
