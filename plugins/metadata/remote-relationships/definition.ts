/**
 * Remote relationship definitions (Document 1 §2.6): to a remote schema field (`lhs_fields` or
 * the legacy `svc_fields`, a nested `remote_field` whose arguments may read `$column`), or to a
 * table of another source (`to_source`). Stored as the client wrote them under `definition`;
 * read here into one normal form.
 */
import { EngineError, isPlainObject, jsonTypeName, parseFailed, toQualifiedTable, type QualifiedTable } from '../../../core/sdk/index.js';

/** One level of `remote_field`: the field called, its arguments (templates), and the next level. */
export interface RemoteFieldStep {
  field: string;
  arguments: Record<string, unknown>;
}

export type JoinTarget =
  | { kind: 'remote'; remoteSchema: string; lhs: string[]; path: RemoteFieldStep[] }
  | { kind: 'source'; relationshipType: 'object' | 'array'; source: string; table: QualifiedTable; mapping: Array<[string, string]> };

/** The stored `definition` of a remote relationship (new or legacy shape) → its target. */
export function parseTarget(def: unknown, path: string): JoinTarget {
  if (!isPlainObject(def)) throw parseFailed(`expected Object, but encountered ${jsonTypeName(def)}`, path);
  const toRemote = def['to_remote_schema'];
  const toSource = def['to_source'];
  if (toRemote !== undefined && toSource !== undefined) throw parseFailed('only one of "to_remote_schema" and "to_source" may be given', path);
  if (isPlainObject(toRemote)) return remoteTarget(toRemote, toRemote['lhs_fields'], `${path}.to_remote_schema`, 'lhs_fields');
  if (toRemote !== undefined) throw parseFailed(`expected Object, but encountered ${jsonTypeName(toRemote)}`, `${path}.to_remote_schema`);
  if (toSource !== undefined) return sourceTarget(toSource, `${path}.to_source`);
  if ('remote_schema' in def) return remoteTarget(def, def['svc_fields'], path, 'svc_fields');
  throw parseFailed('expected "to_remote_schema" or "to_source" (or the legacy "remote_schema")', path);
}

function remoteTarget(o: Record<string, unknown>, lhsRaw: unknown, path: string, lhsKey: string): JoinTarget {
  const remoteSchema = o['remote_schema'];
  if (typeof remoteSchema !== 'string') throw parseFailed('key "remote_schema" not found', path);
  if (!Array.isArray(lhsRaw) || !lhsRaw.every((c) => typeof c === 'string')) throw parseFailed(`key "${lhsKey}" not found`, path);
  const lhs = lhsRaw as string[];
  const steps = remoteFieldSteps(o['remote_field'], `${path}.remote_field`);
  const used = new Set<string>();
  for (const s of steps) collectColumns(s.arguments, used);
  const missing = [...used].filter((c) => !lhs.includes(c));
  if (missing.length > 0) {
    throw new EngineError('invalid-params', `the following variables are not defined in "${lhsKey}": ${missing.join(', ')}`, { path: `${path}.remote_field` });
  }
  return { kind: 'remote', remoteSchema, lhs, path: steps };
}

function remoteFieldSteps(raw: unknown, path: string): RemoteFieldStep[] {
  if (!isPlainObject(raw)) throw parseFailed(raw === undefined ? 'key "remote_field" not found' : `expected Object, but encountered ${jsonTypeName(raw)}`, path);
  const keys = Object.keys(raw);
  if (keys.length !== 1) throw parseFailed('expecting exactly one field at each level of "remote_field"', path);
  const field = keys[0]!;
  const level = raw[field];
  if (!isPlainObject(level)) throw parseFailed(`expected Object, but encountered ${jsonTypeName(level)}`, `${path}.${field}`);
  const args = level['arguments'] ?? {};
  if (!isPlainObject(args)) throw parseFailed(`expected Object, but encountered ${jsonTypeName(args)}`, `${path}.${field}.arguments`);
  const step = { field, arguments: args };
  return level['field'] === undefined ? [step] : [step, ...remoteFieldSteps(level['field'], `${path}.${field}.field`)];
}

/** `$column` references anywhere in an argument template. */
export function collectColumns(value: unknown, out: Set<string>): void {
  if (typeof value === 'string' && value.startsWith('$')) out.add(value.slice(1));
  else if (Array.isArray(value)) for (const v of value) collectColumns(v, out);
  else if (isPlainObject(value)) for (const v of Object.values(value)) collectColumns(v, out);
}

/** A template with `$column` references replaced by the row's values. */
export function fillTemplate(value: unknown, row: Readonly<Record<string, unknown>>): unknown {
  if (typeof value === 'string' && value.startsWith('$')) return row[value.slice(1)] ?? null;
  if (Array.isArray(value)) return value.map((v) => fillTemplate(v, row));
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillTemplate(v, row)]));
  return value;
}

function sourceTarget(raw: unknown, path: string): JoinTarget {
  if (!isPlainObject(raw)) throw parseFailed(`expected Object, but encountered ${jsonTypeName(raw)}`, path);
  const type = raw['relationship_type'];
  if (type !== 'object' && type !== 'array') throw parseFailed('expected "object" or "array" for "relationship_type"', `${path}.relationship_type`);
  const source = raw['source'];
  if (typeof source !== 'string') throw parseFailed('key "source" not found', path);
  const table = toQualifiedTable(raw['table']);
  if (!table) throw parseFailed('key "table" not found', path);
  const mapping = raw['field_mapping'];
  if (!isPlainObject(mapping) || Object.keys(mapping).length === 0) throw parseFailed('key "field_mapping" not found', path);
  for (const [k, v] of Object.entries(mapping)) if (typeof v !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(v)}`, `${path}.field_mapping.${k}`);
  return { kind: 'source', relationshipType: type, source, table, mapping: Object.entries(mapping as Record<string, string>) };
}

/** The columns (or remote fields) of the near side a target joins on. */
export const joinFields = (t: JoinTarget): string[] => (t.kind === 'remote' ? t.lhs : t.mapping.map(([from]) => from));
