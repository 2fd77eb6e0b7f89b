/**
 * Name clashes between the tables of one source: two tables may not generate the same root field
 * (within query/subscription or within mutation) or the same object type name. The first table
 * in metadata order keeps the name; each later one that clashes is reported inconsistent, so
 * tracking a clashing table fails on the new table and existing ones keep serving.
 */
import type { InconsistentObject } from '../../metadata/types.js';
import type { ResolvedTable, TableRootFieldNames } from '../model.js';
import { tableInconsistency, tableObjectName } from './inconsistency.js';

type RootName = 'query_root' | 'subscription_root' | 'mutation_root';

type RootFieldEntry = { root: RootName; group: 'read' | 'write'; name: string };

/** A table's root fields and the first one it generates twice itself, if any. */
interface TableFields {
  fields: RootFieldEntry[];
  own: RootFieldEntry | null;
}

/**
 * Per resolved table: a table taken over from the last snapshot (reuse.ts) is the same object, so
 * at 1,000 tables an operation no longer lists 11k root fields again to check a few new ones.
 */
const tableFields = new WeakMap<ResolvedTable, TableFields>();

function fieldsOf(t: ResolvedTable): TableFields {
  let known = tableFields.get(t);
  if (!known) {
    const fields = generatedRootFields(t);
    const seen = { read: new Set<string>(), write: new Set<string>() };
    let own: RootFieldEntry | null = null;
    for (const f of fields) {
      if (seen[f.group].has(f.name)) {
        own = f;
        break;
      }
      seen[f.group].add(f.name);
    }
    tableFields.set(t, (known = { fields, own }));
  }
  return known;
}

/** The root fields a table can generate, with the root type each lives in. */
function generatedRootFields(t: ResolvedTable): RootFieldEntry[] {
  const f: TableRootFieldNames = t.rootFields;
  const pk = t.primaryKey !== null && t.primaryKey.length > 0;
  const out: RootFieldEntry[] = [];
  const read = (name: string, root: RootName = 'query_root') => out.push({ root, group: 'read', name });
  const write = (name: string) => out.push({ root: 'mutation_root', group: 'write', name });
  read(f.select);
  read(f.select_aggregate);
  if (pk) read(f.select_by_pk);
  read(f.select_stream, 'subscription_root');
  if (t.catalog.insertable) {
    write(f.insert);
    write(f.insert_one);
  }
  if (t.catalog.updatable) {
    write(f.update);
    write(f.update_many);
    if (pk) write(f.update_by_pk);
  }
  if (t.catalog.deletable) {
    write(f.delete);
    if (pk) write(f.delete_by_pk);
  }
  return out;
}

const fieldClash = (root: RootName, field: string, owners: string[]): string =>
  `Encountered conflicting definitions in the selection set for '${root}' for field '${field}' defined in [${owners.join(', ')}]. Fields must not be defined more than once across all sources.`;

/** Returns the tables that keep serving and an inconsistency for each one that clashes. */
export function removeNameClashes(source: string, tables: ResolvedTable[]): { kept: ResolvedTable[]; inconsistencies: InconsistentObject[] } {
  // Owners by field name per group (no key strings built per field: 11k fields at 1,000 tables);
  // an owner's name is only spelt out for a clash.
  const fieldOwners = { read: new Map<string, ResolvedTable>(), write: new Map<string, ResolvedTable>() };
  const typeOwners = new Map<string, ResolvedTable>();
  const kept: ResolvedTable[] = [];
  const inconsistencies: InconsistentObject[] = [];
  const nameOf = (t: ResolvedTable) => tableObjectName(source, t.table);
  for (const t of tables) {
    let clash: string | null = null;
    const { fields, own } = fieldsOf(t);
    // The first field met that another table owns or this one generated before, as a walk would meet it.
    for (const f of fields) {
      const owner = fieldOwners[f.group].get(f.name);
      if (owner !== undefined) {
        clash = fieldClash(f.root, f.name, [nameOf(owner), nameOf(t)]);
        break;
      }
      if (f === own) {
        clash = fieldClash(f.root, f.name, [nameOf(t), nameOf(t)]);
        break;
      }
    }
    const typeOwner = typeOwners.get(t.typeName);
    if (!clash && typeOwner !== undefined) {
      clash = `Found conflicting definitions for GraphQL type '${t.typeName}' defined in [${nameOf(typeOwner)}, ${nameOf(t)}]. Types must not be defined more than once in a source.`;
    }
    if (clash) {
      inconsistencies.push(tableInconsistency(source, t.table, clash));
      continue;
    }
    for (const { group, name } of fields) fieldOwners[group].set(name, t);
    typeOwners.set(t.typeName, t);
    kept.push(t);
  }
  return { kept, inconsistencies };
}
