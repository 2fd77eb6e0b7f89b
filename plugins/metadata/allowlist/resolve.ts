/**
 * The allow-list of a snapshot, inlined as the reference does: the canonical text of every query
 * of every globally listed collection, and per role those of the collections scoped to it.
 * Entries that cannot be served (an unknown collection, a malformed scope) are reported as
 * inconsistent objects instead of being skipped silently.
 */
import {
  isEngineError,
  perSnapshot,
  type SchemaCache,
  type SchemaCacheBuildContext,
} from '../../../core/sdk/index.js';
import { allowlistIn, findCollection, parseGraphQL, parseScope } from '../query-collections/collections.js';
import { canonicalQuery } from './normalise.js';

export interface InlinedAllowlist {
  global: Set<string>;
  perRole: Map<string, Set<string>>;
  problems: Array<{ entry: unknown; reason: string }>;
}

export const inlinedAllowlist = perSnapshot((cache: SchemaCache): InlinedAllowlist => {
  const out: InlinedAllowlist = { global: new Set(), perRole: new Map(), problems: [] };
  for (const entry of allowlistIn(cache.metadata)) {
    const name = typeof entry?.collection === 'string' ? entry.collection : undefined;
    const collection = name === undefined ? undefined : findCollection(cache.metadata, name);
    if (!collection) {
      out.problems.push({ entry, reason: `the allowlist refers to query collection "${name ?? '?'}", which does not exist` });
      continue;
    }
    let texts: string[];
    let scope;
    try {
      scope = parseScope(entry.scope, '$.scope');
      texts = (collection.definition?.queries ?? []).map((q) => canonicalQuery(parseGraphQL(q.query, '$.query')));
    } catch (e) {
      out.problems.push({ entry, reason: isEngineError(e) ? e.message : String(e) });
      continue;
    }
    const targets = scope.global ? [out.global] : scope.roles.map((r) => out.perRole.get(r) ?? out.perRole.set(r, new Set()).get(r)!);
    for (const target of targets) for (const t of texts) target.add(t);
  }
  return out;
});

export function reportAllowlistProblems(build: SchemaCacheBuildContext): void {
  for (const { entry, reason } of inlinedAllowlist(build.cache).problems) {
    const name = (entry as { collection?: unknown })?.collection;
    build.addInconsistency({ type: 'allowlist', name: `allowlist ${String(name)}`, definition: entry, reason: `Inconsistent object: ${reason}` });
  }
}
