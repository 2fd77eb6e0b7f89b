/**
 * Update and delete arguments → `UpdateIR` / `DeleteIR`: the operator objects (`_set`, `_inc`,
 * the jsonb ones) with the role's presets added as `_set`, the user's `where` (or the primary key
 * of `_by_pk` fields) beside the role's filter, and the role's update `check`.
 */
import type { BoolExpIR } from '../../ir.js';
import type { DeleteIR, UpdateIR, UpdateOpIR } from '../../ir-mutation.js';
import type { PlanContext } from '../../schema-draft.js';
import { and } from '../bool.js';
import { buildWhere } from '../bool-exp.js';
import { leafValue, objectEntries, present, validationError, type Input } from '../input.js';
import { UPDATE_OPERATORS } from './operators.js';
import type { MutationView } from './view.js';

/** The operator arguments of one update (a root field's arguments, or one `<t>_updates` entry). */
export function buildUpdate(
  v: MutationView,
  args: ReadonlyMap<string, Input>,
  where: BoolExpIR | null,
  ctx: PlanContext,
  path: string,
): UpdateIR {
  const ops: UpdateOpIR[] = [];
  for (const spec of UPDATE_OPERATORS) {
    const name = v.naming.field(spec.op);
    const arg = args.get(name);
    const given = arg ? present(arg, ctx) : null;
    if (!given) continue;
    const typeName = spec.op === '_set' ? v.names.setInput : spec.op === '_inc' ? v.names.incInput : v.names.opInput(spec.op);
    for (const [key, value] of objectEntries(given, ctx, `${path}.${name}`, typeName)) {
      const at = `${path}.${name}.${key}`;
      const column = v.update?.byField.get(key);
      if (!column || !spec.applies(column)) throw validationError(`field '${key}' not found in type: '${typeName}'`, at);
      const t = spec.valueType(column);
      const leaf = {
        dbType: t.dbType,
        graphqlType: t.graphqlType,
        nullable: true,
        keepsNumericText: t.dbType === column.column.type && column.info.keepsNumericText,
        ...(t.array ? { array: true } : {}),
        ...(spec.op === '_set' && column.enumValues ? { enumValues: column.enumValues } : {}),
      };
      ops.push({ column: column.column.name, type: column.column.type, op: spec.op, value: leafValue(value, ctx, leaf, at) });
    }
  }
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const o of ops) (seen.has(o.column) ? repeated : seen).add(o.column);
  if (repeated.size > 0) {
    const names = [...repeated].map((c) => `"${c}"`).join(', ');
    throw validationError(`Column found in multiple operators: ${names}.`, path);
  }
  // Presets apply even when the client changes nothing; with no operation and no preset the
  // IR has no ops and nothing runs (the reference engine answers an empty response then).
  for (const p of v.updatePresets()) ops.push({ column: p.column, type: columnType(v, p.column), op: '_set', value: p.value });
  return { table: v.ref, ops, where, permissionFilter: v.updateFilter(), check: v.updateCheck() };
}

const columnType = (v: MutationView, column: string): string => v.table.columnsByName.get(column)?.type ?? 'text';

/** A required `where` argument. */
export function requiredWhere(v: MutationView, args: ReadonlyMap<string, Input>, ctx: PlanContext, path: string): BoolExpIR {
  const name = v.naming.field('where');
  const arg = args.get(name);
  const given = arg ? present(arg, ctx) : null;
  if (!given) throw validationError(`missing required field '${name}'`, path);
  return buildWhere(v.filter, given, ctx, `${path}.${name}`);
}

/** Equality on every primary key column, read from `pk` (arguments or `pk_columns` fields). */
export function primaryKeyWhere(v: MutationView, pk: ReadonlyMap<string, Input>, ctx: PlanContext, path: string): BoolExpIR {
  const columns = v.primaryKey ?? [];
  return and(
    columns.map((c): BoolExpIR => {
      const input = pk.get(c.field);
      const at = `${path}.${c.field}`;
      if (!input) throw validationError(`missing required field '${c.field}'`, at);
      const spec = { dbType: c.column.type, graphqlType: c.graphqlType, keepsNumericText: c.info.keepsNumericText, ...(c.enumValues ? { enumValues: c.enumValues } : {}) };
      return {
        kind: 'compare',
        lhs: { kind: 'column', name: c.column.name, type: c.column.type },
        op: '_eq',
        rhs: leafValue(input, ctx, spec, at),
      };
    }),
  );
}

/** The fields of an input object argument (`pk_columns`, a `<t>_updates` entry), by name. */
export function inputFields(input: Input, ctx: PlanContext, path: string, typeName: string): Map<string, Input> {
  return new Map(objectEntries(input, ctx, path, typeName));
}

export function buildDelete(v: MutationView, where: BoolExpIR): DeleteIR {
  return { table: v.ref, where, permissionFilter: v.deleteFilter() };
}
