/**
 * Keeps one SourceConnection per source for as long as its configuration is unchanged, so
 * schema-cache rebuilds reuse pools and prepared statements instead of reconnecting.
 */
import type { DatabaseKind, SourceConnection } from '../db/contract.js';

interface Entry {
  fingerprint: string;
  connection: SourceConnection;
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
