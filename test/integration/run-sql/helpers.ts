/**
 * Helpers of the run_sql tests: the read-API fixture's engine, `/v2/query` and `/v1/query` calls,
 * and permissions written straight into the metadata with replace_metadata.
 */
import { call, metadata, type CallResult } from '../../helpers/engine.js';
import type { MetadataDocument, TableMetadata } from '../../../core/metadata/types.js';

export type Engine = { url: string };

export function runSql(engine: Engine, args: Record<string, unknown>, headers: Record<string, string> = {}): Promise<CallResult> {
  return call(engine, '/v2/query', { type: 'run_sql', args }, headers);
}

export async function exportMetadata(engine: Engine): Promise<MetadataDocument> {
  const res = await metadata<MetadataDocument>(engine, { type: 'export_metadata', args: {} });
  if (res.status !== 200) throw new Error(`export failed: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The metadata entry of a table of the default source, or undefined when it is not tracked. */
export function tableEntry(doc: MetadataDocument, name: string, schema = 'public'): TableMetadata | undefined {
  return doc.sources.find((s) => s.name === 'default')?.tables.find((t) => t.table.name === name && t.table.schema === schema);
}

/** Edits the exported metadata and puts it back, failing loudly if it is refused. */
export async function editMetadata(engine: Engine, edit: (doc: MetadataDocument) => void): Promise<void> {
  const doc = await exportMetadata(engine);
  edit(doc);
  const res = await metadata(engine, { type: 'replace_metadata', args: doc });
  if (res.status !== 200) throw new Error(`replace_metadata failed: ${JSON.stringify(res.body)}`);
}

/** Adds entries to a table's metadata (permissions, configuration...). */
export function addToTable(engine: Engine, name: string, extra: Partial<TableMetadata>): Promise<void> {
  return editMetadata(engine, (doc) => {
    const t = tableEntry(doc, name);
    if (!t) throw new Error(`table ${name} is not tracked`);
    for (const [k, v] of Object.entries(extra)) {
      const key = k as keyof TableMetadata;
      const current = t[key];
      (t as unknown as Record<string, unknown>)[key] = Array.isArray(current) && Array.isArray(v) ? [...current, ...v] : v;
    }
  });
}
