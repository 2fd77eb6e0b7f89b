/**
 * The GraphQL names the engine gives a tracked table (Document 1 §2.4 and the reference's
 * defaults): `<schema>_<table>` outside `public`, custom names and root fields, the source's
 * root-field prefix/suffix/namespace and the graphql-default naming convention.
 */
import type { SourceEntry, TableEntry } from './metadata.js';

export interface TableFields {
  /** Namespace field wrapping every root field of the source, if any. */
  namespace: string | null;
  select: string;
  selectAggregate: string;
  insertOne: string;
  updateByPk: string;
  deleteByPk: string;
  /** A column's field name. */
  column(name: string): string;
}

const camel = (s: string): string => {
  const lead = /^_*/.exec(s)![0];
  return lead + s.slice(lead.length).split('_').filter(Boolean).map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');
};

export function tableFields(source: SourceEntry, entry: TableEntry): TableFields {
  const cfg = entry.configuration ?? {};
  const base = cfg.custom_name ?? (entry.table.schema === 'public' ? entry.table.name : `${entry.table.schema}_${entry.table.name}`);
  const graphqlDefault = source.customization?.naming_convention === 'graphql-default';
  const rf = source.customization?.root_fields ?? {};
  const custom = (key: string): string | undefined => {
    const v = cfg.custom_root_fields?.[key];
    if (typeof v === 'string') return v;
    return v?.name ?? undefined;
  };
  const name = (key: string, snake: string): string => {
    const own = custom(key);
    const n = own ?? (graphqlDefault ? camel(snake) : snake);
    return `${rf.prefix ?? ''}${n}${rf.suffix ?? ''}`;
  };
  return {
    namespace: rf.namespace ?? null,
    select: name('select', base),
    selectAggregate: name('select_aggregate', `${base}_aggregate`),
    insertOne: name('insert_one', `insert_${base}_one`),
    updateByPk: name('update_by_pk', `update_${base}_by_pk`),
    deleteByPk: name('delete_by_pk', `delete_${base}_by_pk`),
    column: (col) => cfg.column_config?.[col]?.custom_name ?? (graphqlDefault ? camel(col) : col),
  };
}
