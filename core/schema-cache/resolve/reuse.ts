/**
 * Resolved tables taken over from the snapshot a metadata operation changes (issue 12: one
 * `pg_track_table` among 1,000 tables must not resolve the other 999 again). The per-step memos
 * (table.ts, relationship-memo.ts, permission-memo.ts) made each table cheap, but every operation
 * still walked, copied and checked all of them: about a third of an operation and most of its
 * garbage. Now a table is handed over as the same object when nothing its resolution read moved:
 *
 * - the source's context: customization, connection, the kind's facts and options, the catalog's
 *   functions (by identity) and enum types (by value);
 * - the table's own frozen metadata entry and catalog entry, by identity;
 * - what it read of other tables. Its foreign keys (enum references) and relationships read
 *   another table's catalog entry, whether it serves and whether it is an enum table: a change
 *   there resolves the reader again. Its permission checks read other tables as resolved
 *   (columns, relationships): any of those resolved again, added or gone resolves the reader
 *   again too, transitively.
 *
 * Only tables whose last resolution reported nothing inconsistent, and whose resolution has no
 * part not tracked here, are taken over: not enum tables or tables referencing one (enum values
 * are rows), nor tables with computed fields (they read the set of serving tables and the
 * catalog's functions) or event triggers (their names are unique across the source). The rest go
 * through the memoised steps as before.
 *
 * A taken-over table is shared by two snapshots, so nothing may write into a resolved table after
 * resolveSource returns it: a plugin deriving more (inherited roles) replaces the table in its
 * snapshot's map with a copy (`copyResolvedTable`).
 */
import type { CatalogTable, DatabaseCatalog } from '../../db/catalog.js';
import { tableKey } from '../../db/catalog.js';
import type { SourceConnection } from '../../db/contract.js';
import type { ScalarTypes } from '../../db/scalar-types.js';
import { jsonValuesEqual } from '../../json-type.js';
import type { SourceCustomization, TableMetadata } from '../../metadata/types.js';
import type { ResolvedSource, ResolvedTable } from '../model.js';

/** What every table of a source was resolved under; any difference resolves every table afresh. */
export interface ResolveContext {
  customization: SourceCustomization;
  connection: SourceConnection;
  scalars: ScalarTypes;
  catalog: DatabaseCatalog;
  /** The remaining ResolveOptions, compared member by member. */
  options: Readonly<Record<string, unknown>>;
}

/** The other tables one table's resolution read (keys; a table absent then counts as read too). */
export interface TableReads {
  /** Read for their catalog entry, whether they serve and whether they are enum tables. */
  shallow: Set<string>;
  /** Read as resolved (permission checks). */
  deep: Set<string>;
}

/** What one resolve left for the next: its tables as resolved (before any plugin copied them). */
interface ResolveRecord {
  context: ResolveContext;
  tables: ReadonlyMap<string, ResolvedTable>;
  /** The tables that may be taken over, with what each one's resolution read. */
  reads: ReadonlyMap<string, TableReads>;
}

const records = new WeakMap<ResolvedSource, ResolveRecord>();

function sameContext(a: ResolveContext, b: ResolveContext): boolean {
  if (a.customization !== b.customization || a.connection !== b.connection || a.scalars !== b.scalars) return false;
  const keys = Object.keys(a.options);
  if (keys.length !== Object.keys(b.options).length || keys.some((k) => a.options[k] !== b.options[k])) return false;
  const x = a.catalog;
  const y = b.catalog;
  if (x === y) return true;
  if (x.serverVersion !== y.serverVersion || x.serverVersionNum !== y.serverVersionNum) return false;
  if (x.functions.length !== y.functions.length || x.functions.some((f, i) => f !== y.functions[i])) return false;
  return jsonValuesEqual(x.enums, y.enums);
}

/** One resolve's use of the previous resolve of its source. */
export class ReusePass {
  private readonly record: ResolveRecord | undefined;
  /** Tables that may be taken over, narrowed by `settle`. */
  private readonly taken = new Map<string, ResolvedTable>();

  /** `entries`: the source's metadata entries that resolve (duplicates left out), with their catalog entries. */
  constructor(
    previous: ResolvedSource | undefined,
    private readonly context: ResolveContext,
    entries: ReadonlyArray<{ key: string; meta: TableMetadata; catalog: CatalogTable | undefined }>,
  ) {
    const record = previous ? records.get(previous) : undefined;
    this.record = record && sameContext(record.context, context) ? record : undefined;
    if (!this.record) return;
    for (const { key, meta, catalog } of entries) {
      const was = this.record.tables.get(key);
      if (was && this.record.reads.has(key) && was.metadata === meta && was.catalog === catalog) this.taken.set(key, was);
    }
  }

  /** The table to take over for `key`, before `settle` decides. */
  candidate(key: string): ResolvedTable | undefined {
    return this.taken.get(key);
  }

  get candidates(): Iterable<ResolvedTable> {
    return this.taken.values();
  }

  /**
   * Given the tables serving now (candidates and the tables resolved afresh, after name clashes),
   * answers the candidates that must be resolved afresh after all, because something they read
   * changed; the rest are taken over.
   */
  settle(serving: ReadonlyMap<string, ResolvedTable>): Set<string> {
    const demoted = new Set<string>();
    const record = this.record;
    if (!record || this.taken.size === 0) return demoted;
    const statusChanged = (key: string): boolean => {
      const was = record.tables.get(key);
      const now = serving.get(key);
      if (!was || !now) return was !== now;
      return was.catalog !== now.catalog || was.isEnum !== now.isEnum;
    };
    for (const key of this.taken.keys()) {
      for (const read of record.reads.get(key)!.shallow) {
        if (statusChanged(read)) {
          demoted.add(key);
          break;
        }
      }
    }
    for (const key of demoted) this.taken.delete(key);
    // Tables as resolved now that are not the objects of the last resolve (resolved afresh,
    // added, gone, or just demoted) change what their deep readers read. Few move in an
    // operation, so each pass checks every remaining candidate's deep reads against them.
    const moved = new Set<string>(demoted);
    for (const [key, was] of record.tables) if (serving.get(key) !== was) moved.add(key);
    for (const key of serving.keys()) if (!record.tables.has(key)) moved.add(key);
    for (let grew = moved.size > 0; grew; ) {
      grew = false;
      for (const key of this.taken.keys()) {
        for (const read of record.reads.get(key)!.deep) {
          if (!moved.has(read)) continue;
          this.taken.delete(key);
          demoted.add(key);
          moved.add(key);
          grew = true;
          break;
        }
      }
    }
    return demoted;
  }

  /** Whether `t` is taken over (after `settle`). */
  takes(t: ResolvedTable): boolean {
    return this.taken.get(t.key) === t;
  }

  /**
   * Keeps what `source`'s resolve produced for the next resolve of the same source: the reads of
   * the tables taken over and of `fresh`, the reusable tables resolved afresh.
   */
  remember(source: ResolvedSource, fresh: ReadonlyMap<string, TableReads>): void {
    const reads = new Map<string, TableReads>();
    for (const t of source.tables.values()) {
      const read = this.takes(t) ? this.record!.reads.get(t.key) : fresh.get(t.key);
      if (read) reads.set(t.key, read);
    }
    records.set(source, { context: this.context, tables: new Map(source.tables), reads });
  }
}

/** Whether a resolved table's parts are all tracked by its reads (see the file's comment). */
export function isReusable(t: ResolvedTable): boolean {
  const m = t.metadata;
  return !t.isEnum && !m.computed_fields?.length && !m.event_triggers?.length && t.columns.every((c) => c.enumTable === undefined);
}

/** The foreign key targets of a catalog entry, which enum references read. */
export function foreignKeyTargets(catalog: CatalogTable, into: Set<string>): void {
  for (const fk of catalog.foreignKeys) into.add(tableKey(fk.refTable));
}

/**
 * A copy of a resolved table whose permission maps are its own, for a plugin that derives more
 * permissions into its snapshot: the original may be shared with other snapshots (reuse.ts).
 */
export function copyResolvedTable(t: ResolvedTable): ResolvedTable {
  const p = t.permissions;
  return {
    ...t,
    permissions: {
      select: new Map(p.select),
      insert: new Map(p.insert),
      update: new Map(p.update),
      delete: new Map(p.delete),
      ...(p.cellFilters ? { cellFilters: new Map(p.cellFilters) } : {}),
    },
  };
}
