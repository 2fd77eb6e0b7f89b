/**
 * Remote relationships of one snapshot, checked against what they join: the table's columns (or
 * the remote type's fields) and the target (a consistent remote schema and a `remote_field` path
 * that exists in it, or a tracked table of another source and its columns). What fails is an
 * inconsistent object; the rest is kept, by table and by remote type, for the schema build.
 */
import { isObjectType, isInterfaceType } from 'graphql';
import { qualifiedTableName, tableKey, type QualifiedTable, type SchemaCache, type SchemaCacheBuildContext } from '../../../core/sdk/index.js';
import type { RemoteSchemaMetadata } from '../remote-schemas/definition.js';
import { remoteSchemasOf, remoteStateOf } from '../remote-schemas/state.js';
import { parseTarget, type JoinTarget } from './definition.js';
import { pathFields } from './to-remote.js';

export interface ResolvedRelationship {
  name: string;
  target: JoinTarget;
}

export interface RelationshipState {
  /** By `<source>\0<schema>.<table>`. */
  tables: Map<string, ResolvedRelationship[]>;
  /** By remote schema name, then original type name. */
  remoteTypes: Map<string, Map<string, ResolvedRelationship[]>>;
}

const EMPTY: RelationshipState = { tables: new Map(), remoteTypes: new Map() };
const states = new WeakMap<SchemaCache, RelationshipState>();
export const relationshipStateOf = (cache: SchemaCache): RelationshipState => states.get(cache) ?? EMPTY;

export const tableKeyOf = (source: string, t: QualifiedTable): string => `${source}\u0000${tableKey(t)}`;

export const tableRelationshipName = (source: string, table: QualifiedTable, name: string): string =>
  `remote_relationship ${name} in table ${qualifiedTableName(table)} in source ${source}`;
export const remoteRelationshipName = (remote: string, type: string, name: string): string =>
  `remote_schema_remote_relationship ${name} on type ${type} in remote schema ${remote}`;

function checkTarget(cache: SchemaCache, target: JoinTarget): string | null {
  if (target.kind === 'remote') {
    const remote = remoteStateOf(cache).remotes.get(target.remoteSchema);
    if (!remote) return `remote schema with name ${JSON.stringify(target.remoteSchema)} not found`;
    const resolved = pathFields(remote.runtime.upstream, target.path);
    return typeof resolved === 'string' ? resolved : null;
  }
  const source = cache.sources.get(target.source);
  if (!source) return `source with name ${JSON.stringify(target.source)} not found`;
  const table = source.tables.get(tableKey(target.table));
  if (!table) return `table ${JSON.stringify(qualifiedTableName(target.table))} does not exist in source ${JSON.stringify(target.source)}`;
  const missing = target.mapping.find(([, to]) => !table.columnsByName.has(to));
  return missing ? `column ${JSON.stringify(missing[1])} does not exist in table ${JSON.stringify(qualifiedTableName(target.table))}` : null;
}

export function resolveRelationships(build: SchemaCacheBuildContext): void {
  const { cache } = build;
  const state: RelationshipState = { tables: new Map(), remoteTypes: new Map() };
  let any = false;
  for (const meta of cache.metadata.sources) {
    for (const t of meta.tables) {
      for (const rr of t.remote_relationships ?? []) {
        any = true;
        const name = String(rr['name']);
        const fail = (reason: string) =>
          build.addInconsistency({
            type: 'remote_relationship',
            name: tableRelationshipName(meta.name, t.table, name),
            definition: { name, source: meta.name, table: t.table, definition: rr['definition'] ?? rr },
            reason: `Inconsistent object: ${reason}`,
          });
        const table = cache.sources.get(meta.name)?.tables.get(tableKey(t.table));
        if (!table) continue;
        let target: JoinTarget;
        try {
          target = parseTarget(rr['definition'] ?? rr, '$.definition');
        } catch (e) {
          fail((e as Error).message);
          continue;
        }
        const own = target.kind === 'remote' ? target.lhs : target.mapping.map(([f]) => f);
        const missing = own.find((c) => !table.columnsByName.has(c));
        const problem = missing ? `column ${JSON.stringify(missing)} does not exist in table ${JSON.stringify(qualifiedTableName(t.table))}` : checkTarget(cache, target);
        if (problem) {
          fail(problem);
          continue;
        }
        const key = tableKeyOf(meta.name, t.table);
        if (!state.tables.has(key)) state.tables.set(key, []);
        state.tables.get(key)!.push({ name, target });
      }
    }
  }
  for (const remote of remoteSchemasOf(cache) as RemoteSchemaMetadata[]) {
    for (const group of remote.remote_relationships ?? []) {
      for (const rel of group.relationships) {
        any = true;
        const name = String(rel['name']);
        const fail = (reason: string) =>
          build.addInconsistency({
            type: 'remote_schema_remote_relationship',
            name: remoteRelationshipName(remote.name, group.type_name, name),
            definition: { remote_schema: remote.name, type_name: group.type_name, name, definition: rel['definition'] },
            reason: `Inconsistent object: ${reason}`,
          });
        const resolved = remoteStateOf(cache).remotes.get(remote.name);
        if (!resolved) continue;
        let target: JoinTarget;
        try {
          target = parseTarget(rel['definition'], '$.definition');
        } catch (e) {
          fail((e as Error).message);
          continue;
        }
        const type = resolved.runtime.upstream.getType(group.type_name);
        if (!type || !(isObjectType(type) || isInterfaceType(type))) {
          fail(`object type with name ${JSON.stringify(group.type_name)} not found in remote schema ${JSON.stringify(remote.name)}`);
          continue;
        }
        const own = target.kind === 'remote' ? target.lhs : target.mapping.map(([f]) => f);
        const missing = own.find((f) => !type.getFields()[f]);
        const problem = missing ? `field with name ${JSON.stringify(missing)} not found in type ${JSON.stringify(group.type_name)}` : checkTarget(cache, target);
        if (problem) {
          fail(problem);
          continue;
        }
        let byType = state.remoteTypes.get(remote.name);
        if (!byType) state.remoteTypes.set(remote.name, (byType = new Map()));
        if (!byType.has(group.type_name)) byType.set(group.type_name, []);
        byType.get(group.type_name)!.push({ name, target });
      }
    }
  }
  if (any) states.set(cache, state);
}
