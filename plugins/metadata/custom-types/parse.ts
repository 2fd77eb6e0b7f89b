/**
 * `set_custom_types` arguments (Document 1 §2.10, §4.9): input objects, objects (with
 * relationships to tracked tables), scalars and enums, in the reference's export shape. Shapes are
 * checked here with parse errors at their path; whether the types make sense together and with
 * the sources is the resolver's job (resolve.ts).
 */
import {
  expectObject,
  isGraphQLName,
  jsonTypeName,
  parseFailed,
  parseTableName,
  requireKey,
  type ArgsObject,
  type QualifiedTable,
} from '../../../core/sdk/index.js';
import { parseType, type TypeNode } from 'graphql';

export interface FieldDefinition {
  name: string;
  type: string;
  description?: string;
  /** Objects only; never allowed, kept so the resolver refuses it with the reference's message. */
  arguments?: unknown;
}

export interface ObjectRelationshipDefinition {
  name: string;
  type: 'object' | 'array';
  /** Absent: the `default` source. */
  source?: string;
  remote_table: QualifiedTable;
  field_mapping: Record<string, string>;
}

export interface CustomTypesDefinition {
  input_objects?: Array<{ name: string; description?: string; fields: FieldDefinition[] }>;
  objects?: Array<{ name: string; description?: string; fields: FieldDefinition[]; relationships?: ObjectRelationshipDefinition[] }>;
  scalars?: Array<{ name: string; description?: string }>;
  enums?: Array<{ name: string; description?: string; values: Array<{ value: string; description?: string; is_deprecated?: boolean }> }>;
}

function list(o: ArgsObject, key: string, path: string): unknown[] | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw parseFailed(`expected Array, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  return v;
}

function name(o: ArgsObject, key: string, path: string): string {
  const v = requireKey(o, key, path);
  if (typeof v !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  if (!isGraphQLName(v)) throw parseFailed(`"${v}" is not a valid GraphQL name`, `${path}.${key}`);
  return v;
}

function description(o: ArgsObject, path: string): { description?: string } {
  const v = o['description'];
  if (v === undefined || v === null) return {};
  if (typeof v !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(v)}`, `${path}.description`);
  return { description: v };
}

/** A GraphQL type expression (`[Int!]!`). */
export function parseTypeExpression(value: unknown, path: string): TypeNode {
  if (typeof value !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(value)}`, path);
  try {
    return parseType(value);
  } catch {
    throw parseFailed(`not a valid GraphQL type: ${value}`, path);
  }
}

function fields(o: ArgsObject, path: string, allowArguments: boolean): FieldDefinition[] {
  const raw = list(o, 'fields', path);
  if (!raw) throw parseFailed('key "fields" not found', path);
  if (raw.length === 0) throw parseFailed('parsing NonEmpty failed, unexpected empty list', `${path}.fields`);
  return raw.map((f, i) => {
    const p = `${path}.fields[${i}]`;
    const fo = expectObject(f, p);
    const type = requireKey(fo, 'type', p);
    parseTypeExpression(type, `${p}.type`);
    if (!allowArguments && fo['arguments'] !== undefined) throw parseFailed('input object fields cannot have arguments', `${p}.arguments`);
    if (fo['arguments'] !== undefined && fo['arguments'] !== null) {
      return { name: name(fo, 'name', p), type: type as string, ...description(fo, p), arguments: fo['arguments'] };
    }
    return { name: name(fo, 'name', p), type: type as string, ...description(fo, p) };
  });
}

function relationships(o: ArgsObject, path: string): ObjectRelationshipDefinition[] | undefined {
  const raw = list(o, 'relationships', path);
  if (!raw) return undefined;
  return raw.map((r, i) => {
    const p = `${path}.relationships[${i}]`;
    const ro = expectObject(r, p);
    const type = requireKey(ro, 'type', p);
    if (type !== 'object' && type !== 'array') throw parseFailed('expected one of "object", "array" for "type"', `${p}.type`);
    const source = ro['source'];
    if (source !== undefined && typeof source !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(source)}`, `${p}.source`);
    const mapping = expectObject(requireKey(ro, 'field_mapping', p), `${p}.field_mapping`);
    for (const [k, v] of Object.entries(mapping)) {
      if (typeof v !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(v)}`, `${p}.field_mapping.${k}`);
    }
    if (Object.keys(mapping).length === 0) throw parseFailed('field_mapping cannot be empty', `${p}.field_mapping`);
    return {
      name: name(ro, 'name', p),
      type,
      ...(source !== undefined ? { source } : {}),
      remote_table: parseTableName(requireKey(ro, 'remote_table', p), `${p}.remote_table`),
      field_mapping: mapping as Record<string, string>,
    };
  });
}

export function parseCustomTypes(value: unknown, path: string): CustomTypesDefinition {
  const o = expectObject(value ?? {}, path);
  const out: CustomTypesDefinition = {};
  const inputs = list(o, 'input_objects', path);
  if (inputs) {
    out.input_objects = inputs.map((t, i) => {
      const p = `${path}.input_objects[${i}]`;
      const to = expectObject(t, p);
      return { name: name(to, 'name', p), ...description(to, p), fields: fields(to, p, false) };
    });
  }
  const objects = list(o, 'objects', path);
  if (objects) {
    out.objects = objects.map((t, i) => {
      const p = `${path}.objects[${i}]`;
      const to = expectObject(t, p);
      const rels = relationships(to, p);
      return { name: name(to, 'name', p), ...description(to, p), fields: fields(to, p, true), ...(rels ? { relationships: rels } : {}) };
    });
  }
  const scalars = list(o, 'scalars', path);
  if (scalars) {
    out.scalars = scalars.map((t, i) => {
      const p = `${path}.scalars[${i}]`;
      const to = expectObject(t, p);
      return { name: name(to, 'name', p), ...description(to, p) };
    });
  }
  const enums = list(o, 'enums', path);
  if (enums) {
    out.enums = enums.map((t, i) => {
      const p = `${path}.enums[${i}]`;
      const to = expectObject(t, p);
      const values = list(to, 'values', p);
      if (!values) throw parseFailed('key "values" not found', p);
      if (values.length === 0) throw parseFailed('parsing NonEmpty failed, unexpected empty list', `${p}.values`);
      return {
        name: name(to, 'name', p),
        ...description(to, p),
        values: values.map((v, j) => {
          const vp = `${p}.values[${j}]`;
          const vo = expectObject(v, vp);
          const dep = vo['is_deprecated'];
          if (dep !== undefined && dep !== null && typeof dep !== 'boolean') throw parseFailed(`expected Boolean, but encountered ${jsonTypeName(dep)}`, `${vp}.is_deprecated`);
          return { value: name(vo, 'value', vp), ...description(vo, vp), ...(typeof dep === 'boolean' ? { is_deprecated: dep } : {}) };
        }),
      };
    });
  }
  return out;
}
