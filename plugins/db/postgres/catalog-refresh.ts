/**
 * A catalog brought up to date by reading only the relations that changed (issue 12: tracking one
 * new table among 1,000 must not introspect all 1,000 again). The earlier catalog's other entries
 * are kept as the same objects, so whatever was derived from them stays valid by identity.
 */
import { type CatalogTable, type DatabaseCatalog, tableKey } from '../../../core/sdk/index.js';
import { relationChanges } from './catalog-state.js';
import { introspectPostgresRelations } from './introspect.js';
import type { PgQueryable } from './pool.js';

/**
 * `earlier` (read after the fingerprint `earlierToken`) as of the fingerprint `token`, or null
 * when the change cannot be confined to a set of relations and the whole source must be read.
 *
 * Besides the relations whose own catalog rows moved, a relation's entry also shows what other
 * relations are called (foreign key targets, columns of a table's row type), and a view's or a
 * foreign table's entry whether it is updatable, which depends on triggers, rules, the relations
 * under it or the foreign data wrapper, none of which its signature covers: those are read
 * again too (views and foreign tables on every refresh).
 */
export async function refreshPgCatalog(
  db: Pick<PgQueryable, 'queryCatalogJson'>,
  earlier: DatabaseCatalog,
  earlierToken: string,
  token: string,
): Promise<DatabaseCatalog | null> {
  const changes = relationChanges(earlierToken, token);
  if (!changes) return null;
  const reread = new Set(changes.changed.map((r) => r.oid));
  const moved = new Set([...changes.earlierNames, ...changes.changed].map(tableKey));
  for (const table of earlier.tables) {
    if (table.kind === 'view' || table.kind === 'foreign_table' || (moved.size > 0 && refersTo(table, moved))) {
      const oid = changes.current.get(tableKey(table));
      if (oid !== undefined) reread.add(oid);
    }
  }
  const read = await introspectPostgresRelations(db, [...reread]);
  const replaced = new Set([...changes.earlierNames.map(tableKey), ...read.tables.map(tableKey)]);
  const kept = earlier.tables.filter((t) => !replaced.has(tableKey(t)) && !reread.has(changes.current.get(tableKey(t)) ?? -1));
  const tables = mergeSorted(kept, read.tables.map(({ oid: _oid, ...table }) => table));
  // The names must be exactly the relations the fingerprint lists; anything else means a change
  // raced the reads (or a case this merge does not know), and only a whole read is sure.
  if (tables.length !== changes.current.size || tables.some((t, i) => i > 0 && byName(tables[i - 1]!, t) === 0)) return null;
  if (tables.some((t) => !changes.current.has(tableKey(t)))) return null;
  return { ...read, tables };
}

function refersTo(table: CatalogTable, names: ReadonlySet<string>): boolean {
  if (table.foreignKeys.some((fk) => names.has(tableKey(fk.refTable)))) return true;
  return table.columns.some(
    (c) =>
      (c.typeKind === 'composite' && names.has(`${c.typeSchema}.${c.type}`)) ||
      // An array's element type has no schema here: any relation of that name counts.
      (c.typeKind === 'array' && c.elementType !== undefined && [...names].some((n) => n.endsWith(`.${c.elementType}`))),
  );
}

/**
 * `kept` (in the introspection's order, as every catalog is) with `added` put in their places:
 * a few comparisons per added table instead of sorting 1,000 again on every refresh.
 */
function mergeSorted(kept: readonly CatalogTable[], added: CatalogTable[]): CatalogTable[] {
  if (added.length === 0) return [...kept];
  added.sort(byName);
  const out: CatalogTable[] = [];
  let i = 0;
  for (const t of added) {
    while (i < kept.length && byName(kept[i]!, t) < 0) out.push(kept[i++]!);
    out.push(t);
  }
  while (i < kept.length) out.push(kept[i++]!);
  return out;
}

/** The introspection's order: schema, then name, both as COLLATE "C" (code point) order. */
function byName(a: CatalogTable, b: CatalogTable): number {
  return compareCodePoints(a.schema, b.schema) || compareCodePoints(a.name, b.name);
}

/**
 * UTF-16 code units order surrogates (code points above U+FFFF) before U+E000..U+FFFF; shifting
 * both ranges makes the first differing unit decide as UTF-8 bytes (COLLATE "C") would.
 */
function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

const codePointRank = (unit: number): number => (unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit);
