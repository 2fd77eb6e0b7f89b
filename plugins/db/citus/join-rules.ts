/**
 * Which relationships a Citus database can run, as `DatabaseKind.checkRelationship`.
 *
 * The distribution types (the reference engine's table, from the joins Citus supports):
 *
 *                     to local        to reference    to distributed
 *   from local        object, array   object, array   -
 *   from reference    object, array   object, array   -
 *   from distributed  -               object          object, array
 *
 * refused with the reference's message. Between two distributed tables Citus joins only tables of
 * one colocation group, on their distribution columns; the reference leaves that to the foreign
 * keys Citus itself checks, which manual relationships do not have, so here it is checked for
 * every relationship (a foreign key Citus accepted always passes).
 */
import { qualifiedTableName, type CatalogTable, type RelationshipCheck, type TableDistribution } from '../../../core/sdk/index.js';

const nameOf = (t: CatalogTable): string => qualifiedTableName({ schema: t.schema, name: t.name });

function typesAllowed(kind: RelationshipCheck['kind'], from: TableDistribution['kind'], to: TableDistribution['kind']): boolean {
  if (kind === 'object') {
    if (from === 'distributed') return to !== 'local';
    return to !== 'distributed';
  }
  return (from === 'distributed') === (to === 'distributed');
}

export function checkCitusRelationship(check: RelationshipCheck): string | null {
  const from = check.table.distribution;
  const to = check.target.distribution;
  // Only the Citus kind's introspection sets distributions; without them there is nothing to judge.
  if (!from || !to) return null;
  if (!typesAllowed(check.kind, from.kind, to.kind)) {
    return `${from.kind} tables (${nameOf(check.table)}) cannot have an ${check.kind} relationship against a ${to.kind} table (${nameOf(check.target)})`;
  }
  if (from.kind !== 'distributed' || to.kind !== 'distributed') return null;
  const same = check.table.schema === check.target.schema && check.table.name === check.target.name;
  if (!same && (from.colocation === 0 || from.colocation !== to.colocation)) {
    return `distributed tables (${nameOf(check.table)}) and (${nameOf(check.target)}) are not colocated: a relationship between distributed tables needs both in one colocation group`;
  }
  if (from.column !== null && to.column !== null && !check.mapping.some(([mine, theirs]) => mine === from.column && theirs === to.column)) {
    return (
      `a relationship between distributed tables (${nameOf(check.table)}) and (${nameOf(check.target)}) must join their distribution columns: ` +
      `"${from.column}" with "${to.column}"`
    );
  }
  return null;
}
