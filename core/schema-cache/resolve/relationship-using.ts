/**
 * Parses a relationship's `using` clause into one of its forms. Shared by the resolver (a bad form
 * makes the relationship inconsistent) and the create operations (a bad form is a parse error at
 * the offending key), so both report the reference engine's messages.
 */
import type { QualifiedTable } from '../../metadata/types.js';
import { isPlainObject, jsonTypeName, toQualifiedTable } from '../../metadata/args.js';
import type { RelationshipKind } from './inconsistency.js';

export type ParsedUsing =
  /** Object relationship through a foreign key on the owner's own columns. */
  | { form: 'fk-local'; columns: string[] }
  /** Relationship through a foreign key on the remote table that references the owner. */
  | { form: 'fk-remote'; table: QualifiedTable; columns: string[] }
  | { form: 'manual'; table: QualifiedTable; mapping: Array<[string, string]>; insertionOrder: 'before_parent' | 'after_parent' | null };

export interface UsingParseError {
  message: string;
  /** Keys below `using`'s parent (e.g. `['using', 'foreign_key_constraint_on']`). */
  path: string[];
}

export type UsingResult = { ok: true; value: ParsedUsing } | { ok: false; error: UsingParseError };

const fail = (message: string, ...path: string[]): UsingResult => ({ ok: false, error: { message, path: ['using', ...path] } });

function columnsOf(v: unknown): string[] | null {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.length > 0 && v.every((c) => typeof c === 'string')) return v as string[];
  return null;
}

function parseRemoteFk(v: Record<string, unknown>): UsingResult {
  const key = 'foreign_key_constraint_on';
  if (!('table' in v)) return fail('key "table" not found', key);
  const table = toQualifiedTable(v.table);
  if (!table) return fail('expected Object, but encountered ' + jsonTypeName(v.table), key, 'table');
  const hasColumn = v.column !== undefined;
  const hasColumns = v.columns !== undefined;
  if (hasColumn === hasColumns) return fail("expected exactly one of 'column' or 'columns'", key);
  const columns = columnsOf(hasColumn ? v.column : v.columns);
  if (!columns) return fail('Expected string or array', key, hasColumn ? 'column' : 'columns');
  return { ok: true, value: { form: 'fk-remote', table, columns } };
}

function parseManual(v: unknown): UsingResult {
  const key = 'manual_configuration';
  if (!isPlainObject(v)) return fail('expected Object, but encountered ' + jsonTypeName(v), key);
  if (!('remote_table' in v)) return fail('key "remote_table" not found', key);
  const table = toQualifiedTable(v.remote_table);
  if (!table) return fail('expected Object, but encountered ' + jsonTypeName(v.remote_table), key, 'remote_table');
  if (!('column_mapping' in v)) return fail('key "column_mapping" not found', key);
  const cm = v.column_mapping;
  if (!isPlainObject(cm) || !Object.values(cm).every((c) => typeof c === 'string')) {
    return fail('expected HashMap ~Text ~Text, but encountered ' + jsonTypeName(cm), key, 'column_mapping');
  }
  const io = v.insertion_order;
  if (io !== undefined && io !== null && io !== 'before_parent' && io !== 'after_parent') {
    return fail('insertion_order must be one of "before_parent", "after_parent"', key, 'insertion_order');
  }
  return {
    ok: true,
    value: { form: 'manual', table, mapping: Object.entries(cm as Record<string, string>), insertionOrder: (io as 'before_parent' | 'after_parent' | undefined) ?? null },
  };
}

/** Parses `using` for an object or array relationship. */
export function parseRelationshipUsing(kind: RelationshipKind, using: unknown): UsingResult {
  if (!isPlainObject(using)) return fail('using should be an object');
  const fk = using.foreign_key_constraint_on;
  const manual = using.manual_configuration;
  const frag = 'one of foreign_key_constraint_on/manual_configuration should be present';
  if (fk === undefined && manual === undefined) return fail('atleast ' + frag);
  if (fk !== undefined && manual !== undefined) return fail('only ' + frag);
  if (manual !== undefined) return parseManual(manual);
  if (kind === 'array') {
    if (!isPlainObject(fk)) return fail('Expecting object { table, columns }.', 'foreign_key_constraint_on');
    return parseRemoteFk(fk);
  }
  if (isPlainObject(fk)) return parseRemoteFk(fk);
  const columns = columnsOf(fk);
  if (!columns) return fail('Expected string or array', 'foreign_key_constraint_on');
  return { ok: true, value: { form: 'fk-local', columns } };
}
