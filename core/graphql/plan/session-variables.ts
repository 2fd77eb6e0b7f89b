/**
 * The session variables a read root field needs. Compiled SQL reads them out of the session JSON,
 * where a missing one would quietly be NULL (and a null-safe permission comparison could then
 * match rows whose column is NULL); the reference engine refuses the request instead, so the
 * executor checks this list before running the statement.
 */
import { EngineError } from '../../errors.js';
import type { Session } from '../../auth/session.js';
import type { AggregateSelectIR, BoolExpIR, FieldIR, OrderExprIR, RootFieldIR, SelectFromIR, TypedValueIR } from '../ir.js';

type Found = Set<string>;

function fromValue(v: TypedValueIR | null, out: Found): void {
  if (v?.value.kind === 'session') out.add(v.value.name.toLowerCase());
}

function fromBoolExp(e: BoolExpIR | null, out: Found): void {
  if (!e) return;
  switch (e.kind) {
    case 'and':
    case 'or':
      for (const i of e.items) fromBoolExp(i, out);
      return;
    case 'not':
      return fromBoolExp(e.item, out);
    case 'compare':
      return fromValue(e.rhs, out);
    case 'relationship':
    case 'exists':
    case 'computedTable':
      return fromBoolExp(e.where, out);
    case 'aggregatePredicate':
      fromBoolExp(e.filter, out);
      return fromValue(e.predicate.rhs, out);
    default:
      return;
  }
}

function fromOrder(e: OrderExprIR, out: Found): void {
  if (e.kind === 'objectRelationship') {
    fromBoolExp(e.filter, out);
    fromOrder(e.expr, out);
  } else if (e.kind === 'arrayAggregate' || e.kind === 'computedAggregate') {
    fromBoolExp(e.filter, out);
  }
}

function fromSelectFrom(s: SelectFromIR, out: Found): void {
  fromBoolExp(s.where, out);
  fromBoolExp(s.permissionFilter, out);
  for (const o of s.orderBy) fromOrder(o.expr, out);
  fromValue(s.limit, out);
  fromValue(s.offset, out);
}

function fromFields(fields: readonly FieldIR[], out: Found): void {
  for (const f of fields) {
    if (f.kind === 'objectRelationship' || f.kind === 'arrayRelationship' || f.kind === 'computedTable') {
      fromSelectFrom(f.select, out);
      fromFields(f.select.fields, out);
    } else if (f.kind === 'arrayAggregate') {
      fromAggregate(f.aggregate, out);
    }
  }
}

function fromAggregate(a: AggregateSelectIR, out: Found): void {
  fromSelectFrom(a, out);
  for (const f of a.fields) if (f.kind === 'nodes') fromFields(f.fields, out);
}

/** Every session variable the root field reads, lower-cased and sorted. */
export function sessionVariablesOfQuery(ir: RootFieldIR): string[] {
  const out: Found = new Set();
  if (ir.kind === 'select') {
    fromSelectFrom(ir.select, out);
    fromFields(ir.select.fields, out);
  } else {
    fromAggregate(ir.aggregate, out);
  }
  return [...out].sort();
}

/** `not-found` "missing session variable: \"x-svc-user-id\"" for the first one the session lacks. */
export function requireSessionVariables(names: readonly string[] | undefined, session: Session): void {
  for (const name of names ?? []) {
    if (session.variables[name] === undefined) throw new EngineError('not-found', `missing session variable: "${name}"`, { path: '$' });
  }
}
