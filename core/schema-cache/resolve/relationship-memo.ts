/**
 * Resolved relationships reused across snapshots, as the permission memo does for permissions: a
 * frozen relationship entry (shared by a draft with the snapshot it came from) resolves the same
 * while its table's catalog entry, the kind's join rule and every tracked table it looked up (by
 * catalog entry, or absence) are unchanged. Those lookups go through the `tracked` map only.
 */
import type { CatalogTable } from '../../db/catalog.js';
import { freezeDocument } from '../../metadata/cow-draft.js';
import type { RelationshipMetadata } from '../../metadata/types.js';
import type { ResolvedRelationship } from '../model.js';
import { ResolveError, type RelationshipKind } from './inconsistency.js';
import { resolveRelationship, type RelationshipEnv, type RelationshipRule } from './relationships.js';

type Outcome = { ok: true; relationship: ResolvedRelationship } | { ok: false; message: string; code: ResolveError['code'] };

interface MemoRecord {
  kind: RelationshipKind;
  source: string;
  catalog: CatalogTable;
  rule: RelationshipRule | undefined;
  reads: Array<[string, CatalogTable | undefined]>;
  outcome: Outcome;
}

const records = new WeakMap<RelationshipMetadata, MemoRecord>();

/** resolveRelationship, remembered for frozen entries; throws the same ResolveError it would. */
export function resolveRelationshipMemo(
  env: RelationshipEnv,
  kind: RelationshipKind,
  rel: RelationshipMetadata,
  rule: RelationshipRule | undefined,
  /** Gets the keys of the tracked tables the resolution looked up (reuse.ts). */
  readKeys?: Set<string>,
): ResolvedRelationship {
  const frozen = Object.isFrozen(rel);
  const known = frozen ? records.get(rel) : undefined;
  if (known && stillHolds(known, env, kind, rule)) {
    if (readKeys) for (const [key] of known.reads) readKeys.add(key);
    return unwrap(known.outcome);
  }
  const reads = new Map<string, CatalogTable | undefined>();
  const tracked = env.tracked;
  const view: ReadonlyMap<string, CatalogTable> = new Proxy(tracked, {
    get(target, prop) {
      if (prop === 'get' || prop === 'has') {
        return (key: string) => {
          const found = target.get(key);
          reads.set(key, found);
          return prop === 'get' ? found : found !== undefined;
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  let outcome: Outcome;
  try {
    outcome = { ok: true, relationship: freezeDocument(resolveRelationship({ ...env, tracked: view }, kind, rel, rule)) };
  } catch (e) {
    if (!(e instanceof ResolveError)) throw e;
    outcome = { ok: false, message: e.message, code: e.code };
  }
  if (frozen) records.set(rel, { kind, source: env.source, catalog: env.catalog, rule, reads: [...reads], outcome });
  if (readKeys) for (const key of reads.keys()) readKeys.add(key);
  return unwrap(outcome);
}

function stillHolds(record: MemoRecord, env: RelationshipEnv, kind: RelationshipKind, rule: RelationshipRule | undefined): boolean {
  if (record.kind !== kind || record.source !== env.source || record.catalog !== env.catalog || record.rule !== rule) return false;
  for (const [key, was] of record.reads) if (env.tracked.get(key) !== was) return false;
  return true;
}

function unwrap(outcome: Outcome): ResolvedRelationship {
  if (outcome.ok) return outcome.relationship;
  throw new ResolveError(outcome.message, outcome.code);
}
