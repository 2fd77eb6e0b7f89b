/**
 * Checks every query of every collection against the admin schema when a snapshot is built, as
 * the reference does: a query that does not parse or validate (or holds several operations) is an
 * inconsistent object, `In query collection "c" the query "q" is invalid with the following
 * error(s): ...`, which also says which REST endpoints use it and whether it is allow-listed.
 */
import { getOperationAST, Kind, type DocumentNode } from 'graphql';
import {
  ADMIN_ROLE,
  isEngineError,
  type SchemaCacheBuildContext,
  validateDocument,
} from '../../../core/sdk/index.js';
import { allowlistIn, collectionsIn, parseCollectionDefinition, parseGraphQL, restEndpointsIn, type ListedQuery } from './collections.js';

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

function problemsOf(document: DocumentNode, validateAgainstSchema: (d: DocumentNode) => void): string[] {
  if (!document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION)) return ['the document has no operation'];
  if (!getOperationAST(document)) return ['exactly one operation has to be present in the document when operationName is not specified'];
  try {
    validateAgainstSchema(document);
    return [];
  } catch (e) {
    return [messageOf(e)];
  }
}

export async function validateCollections(build: SchemaCacheBuildContext): Promise<void> {
  const metadata = build.cache.metadata;
  const collections = collectionsIn(metadata);
  if (collections.length === 0) return;
  const admin = await build.cache.schemaFor(ADMIN_ROLE);
  const allowlisted = new Set(allowlistIn(metadata).map((e) => e.collection));
  collections.forEach((raw, i) => {
    const name = typeof raw?.name === 'string' ? raw.name : `#${i}`;
    let queries: ListedQuery[];
    try {
      queries = parseCollectionDefinition(raw?.definition, '$.definition').queries;
    } catch (e) {
      build.addInconsistency({
        type: 'query_collections',
        name: `query_collections ${name}`,
        definition: raw,
        reason: `Inconsistent object: In query collection "${name}": ${isEngineError(e) ? e.message : messageOf(e)}`,
      });
      return;
    }
    for (const q of queries) {
      const problems = problemsOf(parseGraphQL(q.query, '$'), (d) => validateDocument(admin.schema, d));
      if (problems.length === 0) continue;
      const endpoints = restEndpointsIn(metadata)
        .filter((e) => e.definition?.query?.collection_name === name && e.definition.query.query_name === q.name)
        .map((e) => `"${e.name}"`);
      const usedBy = endpoints.length > 0 ? `. This query is being used in the following REST endpoint(s): ${endpoints.join(', ')}` : '';
      const inAllowlist = allowlisted.has(name) ? '. This query is in allowlist.' : '';
      build.addInconsistency({
        type: 'query_collections',
        name: `query_collections ${q.name} in ${name}`,
        definition: q,
        reason:
          `Inconsistent object: In query collection "${name}" the query "${q.name}" is invalid with the following error(s): ` +
          problems.map((p) => `"${p}"`).join(', ') +
          usedBy +
          inAllowlist,
      });
    }
  });
}
