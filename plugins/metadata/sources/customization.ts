/**
 * Parses a source `customization` (Document 1 §2.3). Names must be GraphQL names, as in the
 * reference, because they end up in generated field and type names.
 */
import {
  EngineError,
  expectObject,
  isGraphQLName,
  jsonTypeName,
  parseFailed,
  type SourceCustomization,
} from '../../../core/sdk/index.js';

/** `svc-default` is the neutral spelling of the reference's `hasura-default`; both are accepted. */
const NAMING_CONVENTIONS = ['svc-default', 'hasura-default', 'graphql-default'];

function names(value: unknown, keys: readonly string[], path: string): Record<string, string> {
  const o = expectObject(value, path);
  const out: Record<string, string> = {};
  for (const key of keys) {
    const v = o[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
    if (!isGraphQLName(v)) throw parseFailed(`"${v}" is not a valid GraphQL name`, `${path}.${key}`);
    out[key] = v;
  }
  return out;
}

export function parseSourceCustomization(value: unknown, path: string): SourceCustomization {
  const o = expectObject(value, path);
  const out: SourceCustomization = {};
  if (o.root_fields !== undefined && o.root_fields !== null) {
    out.root_fields = names(o.root_fields, ['namespace', 'prefix', 'suffix'], `${path}.root_fields`);
  }
  if (o.type_names !== undefined && o.type_names !== null) {
    out.type_names = names(o.type_names, ['prefix', 'suffix'], `${path}.type_names`);
  }
  const naming = o.naming_convention;
  if (naming !== undefined && naming !== null) {
    if (typeof naming !== 'string' || !NAMING_CONVENTIONS.includes(naming)) {
      throw new EngineError('parse-failed', 'naming_convention can either be "svc-default" or "graphql-default"', {
        path: `${path}.naming_convention`,
      });
    }
    out.naming_convention = naming;
  }
  return out;
}
