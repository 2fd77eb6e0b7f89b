/**
 * The one walker over the query IR for what it reads: the tables (change tracking watches them)
 * and the session variables (the executor refuses a request missing one, and subscribers that
 * differ only in variables a query never reads share a cohort). A function call makes the tables
 * unknowable (it may read anything); a function taking the whole session reads every variable.
 */
import type {
  AggregateSelectIR,
  BoolExpIR,
  ConnectionSelectIR,
  FieldIR,
  FunctionCallIR,
  OrderExprIR,
  RootFieldIR,
  ScalarExprIR,
  SelectFromIR,
  SubscriptionFieldIR,
  TableRef,
  TypedValueIR,
} from './ir.js';

export class IrReadsWalker {
  readonly tables = new Map<string, TableRef>();
  readonly session = new Set<string>();
  callsFunction = false;
  wholeSession = false;

  table(t: TableRef): void {
    this.tables.set(`${t.schema}\u0000${t.name}`, t);
  }

  value(v: TypedValueIR | null): void {
    if (v?.value.kind === 'session') this.session.add(v.value.name.toLowerCase());
  }

  call(c: FunctionCallIR): void {
    this.callsFunction = true;
    for (const a of c.args) {
      if (a.value.kind === 'value') this.value(a.value.value);
      else if (a.value.kind === 'session') this.wholeSession = true;
    }
  }

  scalar(e: ScalarExprIR): void {
    if (e.kind === 'cast') return this.scalar(e.expr);
    if (e.kind === 'computed') this.call(e.call);
    // An inherited role's hidden cell: its condition reads tables and session variables too.
    if (e.visibleWhen) this.boolExp(e.visibleWhen);
  }

  boolExp(e: BoolExpIR | null): void {
    if (!e) return;
    switch (e.kind) {
      case 'and':
      case 'or':
        for (const i of e.items) this.boolExp(i);
        return;
      case 'not':
        return this.boolExp(e.item);
      case 'compare':
        this.scalar(e.lhs);
        return this.value(e.rhs);
      case 'kindOperator':
        this.scalar(e.lhs);
        for (const v of Object.values(e.args)) this.value(v);
        return;
      case 'compareColumn':
        return this.scalar(e.lhs);
      case 'relationship':
      case 'exists':
        this.table(e.target);
        return this.boolExp(e.where);
      case 'computedTable':
        this.table(e.target);
        this.call(e.call);
        return this.boolExp(e.where);
      case 'aggregatePredicate':
        this.table(e.target);
        this.boolExp(e.filter);
        return this.value(e.predicate.rhs);
      case 'true':
      case 'false':
        return;
    }
  }

  order(e: OrderExprIR): void {
    switch (e.kind) {
      case 'computed':
        this.call(e.call);
        if (e.visibleWhen) this.boolExp(e.visibleWhen);
        return;
      case 'objectRelationship':
        this.table(e.target);
        this.boolExp(e.filter);
        return this.order(e.expr);
      case 'arrayAggregate':
        this.table(e.target);
        return this.boolExp(e.filter);
      case 'computedAggregate':
        this.table(e.target);
        this.call(e.call);
        return this.boolExp(e.filter);
      case 'column':
        if (e.visibleWhen) this.boolExp(e.visibleWhen);
        return;
    }
  }

  selectFrom(s: SelectFromIR): void {
    this.table(s.from);
    if (s.function) this.call(s.function);
    this.boolExp(s.where);
    this.boolExp(s.permissionFilter);
    for (const c of Object.values(s.distinctVisibleWhen ?? {})) this.boolExp(c);
    for (const o of s.orderBy) this.order(o.expr);
    this.value(s.limit);
    this.value(s.offset);
  }

  fields(fields: readonly FieldIR[]): void {
    for (const f of fields) {
      switch (f.kind) {
        case 'objectRelationship':
        case 'arrayRelationship':
        case 'computedTable':
          this.selectFrom(f.select);
          this.fields(f.select.fields);
          break;
        case 'arrayAggregate':
          this.aggregate(f.aggregate);
          break;
        case 'arrayConnection':
          this.connection(f.connection);
          break;
        case 'computedScalar':
          this.call(f.call);
          if (f.visibleWhen) this.boolExp(f.visibleWhen);
          break;
        case 'column':
          if (f.visibleWhen) this.boolExp(f.visibleWhen);
          break;
        case 'typename':
          break;
      }
    }
  }

  aggregate(a: AggregateSelectIR): void {
    this.selectFrom(a);
    for (const f of a.fields) {
      if (f.kind === 'nodes') this.fields(f.fields);
      if (f.kind !== 'aggregate') continue;
      for (const op of f.ops) {
        if (op.kind === 'count') for (const c of Object.values(op.visibleWhen ?? {})) this.boolExp(c);
        if (op.kind === 'fn') for (const x of op.fields) if (x.kind === 'column' && x.visibleWhen) this.boolExp(x.visibleWhen);
      }
    }
  }

  connection(c: ConnectionSelectIR): void {
    this.selectFrom(c);
    for (const v of c.split?.values ?? []) this.value(v);
    this.value(c.slice?.count ?? null);
    for (const f of c.fields) {
      if (f.kind !== 'edges') continue;
      for (const e of f.fields) if (e.kind === 'node') this.fields(e.fields);
    }
  }

  root(ir: RootFieldIR): void {
    if (ir.kind === 'select') {
      this.selectFrom(ir.select);
      this.fields(ir.select.fields);
    } else if (ir.kind === 'connection') {
      this.connection(ir.connection);
    } else {
      this.aggregate(ir.aggregate);
    }
  }

  field(f: SubscriptionFieldIR): void {
    switch (f.kind) {
      case 'root':
        return this.root(f.ir);
      case 'stream':
        this.selectFrom(f.ir.select);
        this.fields(f.ir.select.fields);
        return this.value(f.ir.batchSize);
      case 'namespace':
        for (const x of f.fields) this.field(x);
        return;
      case 'typename':
        return;
    }
  }
}
