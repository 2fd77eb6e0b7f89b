/**
 * What a mutation answers → `MutationReturnIR`: the `<t>_mutation_response` selection
 * (`affected_rows`, `returning`, `__typename`) or, for `_one`/`_by_pk`, the row's own selection.
 * Rows are read through the role's select permission: only its columns exist in the schema, and
 * its filter is carried along so rows the role may not see are left out. Nested relationships
 * re-apply their tables' select permissions, as in queries.
 */
import { Kind, type FieldNode, type SelectionSetNode } from 'graphql';
import type { MutationResponseFieldIR, MutationReturnIR } from '../../ir-mutation.js';
import type { PlanContext } from '../../schema-draft.js';
import { buildFields } from '../select.js';
import { collectFields, subSelection } from '../selection.js';
import { validationError } from '../input.js';
import type { MutationView } from './view.js';

const EMPTY: SelectionSetNode = { kind: Kind.SELECTION_SET, selections: [] };

export function buildSingleReturn(v: MutationView, field: FieldNode, ctx: PlanContext, path: string): MutationReturnIR {
  const select = v.select;
  if (!select) throw validationError(`field '${field.name.value}' needs a select permission`, path);
  return {
    output: { kind: 'single', fields: buildFields(select, field.selectionSet ?? EMPTY, ctx, path) },
    selectFilter: select.permissionFilter(),
  };
}

export function buildResponseReturn(v: MutationView, set: SelectionSetNode | undefined, ctx: PlanContext, path: string): MutationReturnIR {
  const select = v.select;
  const fields = collectFields(set, ctx).map((f): MutationResponseFieldIR => {
    const at = `${path}.selectionSet.${f.key}`;
    if (f.name === '__typename') return { kind: 'typename', alias: f.key, typeName: v.names.mutationResponse };
    if (f.name === 'affected_rows') return { kind: 'affectedRows', alias: f.key };
    if (f.name === 'returning' && select) {
      return { kind: 'returning', alias: f.key, fields: buildFields(select, subSelection(f), ctx, at) };
    }
    throw validationError(`field '${f.name}' not found in type: '${v.names.mutationResponse}'`, at);
  });
  return { output: { kind: 'response', fields }, selectFilter: select ? select.permissionFilter() : null };
}
