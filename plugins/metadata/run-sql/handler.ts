/**
 * Runs one `run_sql`: the SQL in a transaction on the source, and, when the schema may change,
 * the metadata carried across that change (core/metadata/schema-change.ts) before the transaction
 * commits. After it commits, the draft takes the new metadata and the source is introspected again
 * when rebuilding, so a new column is queryable without reload_metadata.
 */
import {
  applySchemaChange,
  ARGS_PATH,
  EngineError,
  isEngineError,
  type MetadataOperation,
  type OperationContext,
  type OperationResult,
  requireSourceOfKind,
  type SchemaChangeOutcome,
  type SourceConnections,
} from '../../../core/sdk/index.js';
import { needsMetadataCheck, parseRunSqlArgs } from './args.js';

export function runSqlHandler(prefix: string) {
  return async (op: MetadataOperation, ctx: OperationContext): Promise<OperationResult> => {
    const args = parseRunSqlArgs(op.args);
    const kind = ctx.dbKind(prefix);
    const source = requireSourceOfKind(ctx.draft, args.source, kind, ARGS_PATH);
    const connection = ctx.container.resolve<SourceConnections>('sourceConnections').get(source.name, kind, source.configuration);
    if (!connection.runSql) {
      throw new EngineError('not-supported', `run_sql is not supported for sources of kind ${kind.kind}`, { path: ARGS_PATH });
    }
    // Frozen: the schema change reads the whole document and copies it once (not through the draft).
    const draft = ctx.frozenDraft?.() ?? ctx.draft;
    let outcome: SchemaChangeOutcome | null = null;
    const result = await connection
      .runSql(args.sql, {
        readOnly: args.readOnly,
        sessionJson: JSON.stringify(ctx.session.variables),
        ...(needsMetadataCheck(args)
          ? {
              beforeCommit: (before, after) => {
                outcome = applySchemaChange({ doc: draft, sourceName: source.name, before, after, cascade: args.cascade, path: ARGS_PATH });
              },
            }
          : {}),
      })
      .catch((e: unknown) => {
        // The reference reports every failure of the SQL (and of the connection) at `$.args`.
        throw isEngineError(e) && e.path === '$' ? e.atPath(ARGS_PATH) : e;
      });
    // Without the check the SQL may still have created tables a later operation of the bulk
    // tracks: whatever catalog was read before is stale.
    if (!args.readOnly) ctx.invalidateCatalog?.(source.name);
    const done = outcome as SchemaChangeOutcome | null;
    if (done && (done.metadataChanged || done.schemaChanged)) {
      ctx.draft = done.metadata;
      // Persisting even an unchanged document moves resource_version, which tells other engines
      // on the same metadata database to rebuild against the changed schema.
      ctx.markChanged();
      if (done.schemaChanged) ctx.requestReload({ sources: [source.name], remoteSchemas: false, recreateEventTriggers: false });
    }
    return { body: { result_type: result.resultType, result: result.result } };
  };
}
