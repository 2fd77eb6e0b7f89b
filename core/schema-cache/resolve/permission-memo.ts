/**
 * Resolved permissions reused across snapshots. Parsing and validating every permission of a
 * source was the biggest part of resolving it (60k permissions at 1,000 tables and 20 roles: about
 * a quarter of an incremental metadata operation). A snapshot's permission entries are frozen and
 * a draft shares the unchanged ones (core/metadata/cow-draft.ts), so a list of entries seen before
 * has the same content; its outcomes (the parsed permission, or why it failed) still holds while
 * every table its validation read is unchanged: the same metadata entry and catalog entry, and the
 * same resolved relationships, computed fields and enum references. Validation reads other tables
 * only through the `tables` map, so those reads are recorded as the outcome's dependencies.
 */
import type { SourceConnection } from '../../db/contract.js';
import type { ScalarTypes } from '../../db/scalar-types.js';
import type { PermissionType } from '../../metadata/dependencies.js';
import type { AnyPermission } from '../../metadata/permission-parse.js';
import type { CatalogTable } from '../../db/catalog.js';
import type { TableMetadata } from '../../metadata/types.js';
import type { ResolvedRelationship, ResolvedTable } from '../model.js';

/** What one table looked like to a validation. */
interface TableShape {
  metadata: TableMetadata;
  catalog: CatalogTable;
  /** Relationships, computed fields, enum references and operators, as resolved (they depend on other tables). */
  resolved: string;
}

export type PermissionOutcome = { ok: true; permission: AnyPermission } | { ok: false; message: string };
type Outcome = PermissionOutcome;

interface MemoRecord {
  type: PermissionType;
  context: SourceContext;
  /** Each table key validation read, with what it found (null: no such serving table). */
  reads: Array<[string, TableShape | null]>;
  outcomes: readonly Outcome[];
}

/** What validation depends on beyond the tables: the kind's type facts and operators, and mutability. */
export interface SourceContext {
  scalars: ScalarTypes;
  connection: SourceConnection;
  writable: boolean;
}

const records = new WeakMap<object, MemoRecord>();

/**
 * The last shape text of a table whose resolved parts are relationships only (most tables), kept
 * while its relationships are the same objects by name: the relationship memo hands out the
 * same object while it holds, so most tables' text is not built again every operation (it was a
 * seventh of an operation at 1,000 tables), and equal texts compare as the same string.
 */
const relationshipOnlyShapes = new WeakMap<TableMetadata, { relationships: Array<[string, ResolvedRelationship]>; text: string }>();

function resolvedShape(t: ResolvedTable): string {
  const relationshipsOnly = !t.computedFields?.size && !t.enumValues && t.columns.every((c) => !c.enumTable && !c.operators);
  if (!relationshipsOnly) return shapeText(t);
  const kept = relationshipOnlyShapes.get(t.metadata);
  if (kept && sameEntries(kept.relationships, t.relationships)) return kept.text;
  const text = shapeText(t);
  relationshipOnlyShapes.set(t.metadata, { relationships: [...t.relationships], text });
  return text;
}

function sameEntries<V>(kept: ReadonlyArray<[string, V]>, now: ReadonlyMap<string, V>): boolean {
  if (kept.length !== now.size) return false;
  let i = 0;
  for (const [name, value] of now) {
    const [keptName, keptValue] = kept[i++]!;
    if (name !== keptName || value !== keptValue) return false;
  }
  return true;
}

function shapeText(t: ResolvedTable): string {
  const parts: string[] = [];
  for (const [name, r] of t.relationships) parts.push(`r:${name}:${r.kind}:${r.target}:${r.mapping.join(';')}:${r.required}`);
  for (const [name, c] of t.computedFields ?? []) {
    const returns = c.returns.kind === 'table' ? `t:${c.returns.table}` : `s:${c.returns.type}:${c.returns.typeKind ?? ''}`;
    parts.push(`c:${name}:${returns}:${c.args.map((a) => a.role).join(';')}`);
  }
  for (const c of t.columns) {
    if (c.enumTable) parts.push(`e:${c.name}:${c.enumTable}`);
    if (c.operators) parts.push(`o:${c.name}`);
  }
  if (t.enumValues) parts.push(`v:${t.enumValues.map((v) => v.value).join(';')}`);
  return parts.join('|');
}

/** One source's resolve: the tables as they are now, and their shapes, computed once each. */
export class PermissionMemoPass {
  private readonly shapes = new Map<string, TableShape | null>();
  /** Whether a shape remembered from an earlier pass is still the table's: many records share one. */
  private readonly verdicts = new Map<TableShape, boolean>();

  constructor(
    private readonly context: SourceContext,
    private readonly tables: ReadonlyMap<string, ResolvedTable>,
  ) {}

  private shapeOf(key: string): TableShape | null {
    let shape = this.shapes.get(key);
    if (shape === undefined) {
      const t = this.tables.get(key);
      shape = t ? { metadata: t.metadata, catalog: t.catalog, resolved: resolvedShape(t) } : null;
      this.shapes.set(key, shape);
    }
    return shape;
  }

  private sameContext(c: SourceContext): boolean {
    return c.scalars === this.context.scalars && c.connection === this.context.connection && c.writable === this.context.writable;
  }

  private stillHolds(record: MemoRecord, type: PermissionType): boolean {
    if (record.type !== type || !this.sameContext(record.context)) return false;
    for (const [key, was] of record.reads) {
      const now = this.shapeOf(key);
      if (was === null || now === null) {
        if (was !== now) return false;
        continue;
      }
      if (was === now) continue;
      let same = this.verdicts.get(was);
      if (same === undefined) {
        same = was.metadata === now.metadata && was.catalog === now.catalog && was.resolved === now.resolved;
        this.verdicts.set(was, same);
      }
      if (!same) return false;
    }
    return true;
  }

  /**
   * The outcomes for `entries` (a table's frozen list of permissions of one type, keyed by the
   * list: checking 4k lists instead of 60k entries): the remembered ones when they still hold,
   * else `validate`'s, run against a view of the tables that records what it reads.
   */
  outcomes<E>(
    entries: readonly E[],
    type: PermissionType,
    table: ResolvedTable,
    validate: (entries: readonly E[], type: PermissionType, table: ResolvedTable, tables: ReadonlyMap<string, ResolvedTable>) => Outcome[],
    /** Gets the keys of the tables validation read (reuse.ts). */
    readKeys?: Set<string>,
  ): readonly Outcome[] {
    const frozen = Object.isFrozen(entries);
    const known = frozen ? records.get(entries) : undefined;
    if (known && this.stillHolds(known, type)) {
      if (readKeys) for (const [key] of known.reads) readKeys.add(key);
      return known.outcomes;
    }
    const read = new Set<string>([table.key]);
    const outcomes = validate(entries, type, table, recordingView(this.tables, read));
    if (readKeys) for (const key of read) readKeys.add(key);
    if (frozen) {
      const reads: Array<[string, TableShape | null]> = [...read].map((key) => [key, this.shapeOf(key)]);
      records.set(entries, { type, context: this.context, reads, outcomes });
    }
    return outcomes;
  }
}

/** The tables map, noting each key looked up. */
function recordingView(tables: ReadonlyMap<string, ResolvedTable>, read: Set<string>): ReadonlyMap<string, ResolvedTable> {
  return new Proxy(tables, {
    get(target, prop) {
      if (prop === 'get') {
        return (key: string) => {
          read.add(key);
          return target.get(key);
        };
      }
      if (prop === 'has') {
        return (key: string) => {
          read.add(key);
          return target.has(key);
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
