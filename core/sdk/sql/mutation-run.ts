/**
 * Runs a compiled mutation program (mutation-plan.ts) inside the request's transaction, for SQL
 * kinds built on these blocks. The written rows are known by their key (the primary key, else
 * the first unique key). What is the same in every dialect is here: the order of the program's
 * statements, inserts of related rows, on_conflict's search for the existing row, the role's
 * checks, and the answer's JSON. A kind subclasses it with its statements, placeholders, the
 * condition matching the written rows, deadlines and errors.
 */
import { EngineError } from '../../errors.js';
import type { TableRef } from '../../graphql/ir.js';
import type { AffectedSlot, CompiledMutationProgram, InsertPlan, Marked, ReturnPlan, TablePlan, UpdatePlan } from './mutation-plan.js';
import { PROGRAM_MARKERS, slotMarker } from './slots.js';

const CHECK_FAILED = 'check constraint of an insert/update permission has failed';

// A kind's slot union names its affected slot by kind only as far as TypeScript sees `kind: string`.
const isAffected = (s: { kind: string }): s is AffectedSlot => s.kind === 'affected';

export type Row = Record<string, unknown>;

/** A written row's key values, in key column order. */
export type KeyRow = unknown[];

/** The rows a statement wrote: their key columns and values. */
export interface Affected {
  keys: string[];
  rows: KeyRow[];
}

export interface TableKeys {
  /** The columns that identify a row (primary key, else the first unique key); null: none. */
  key: string[] | null;
  /** Unique keys (and the primary key) by constraint or index name. */
  uniques: Map<string, string[]>;
}

/** A statement's text in the dialect's placeholders, and its values in their order. */
export interface BoundSql {
  sql: string;
  params: unknown[];
}

export abstract class MutationProgramRun<S extends { kind: string }, K extends TableKeys = TableKeys> {
  /** Each slot's value, bound once; affected slots (null here) are expanded per statement. */
  protected readonly bound: unknown[];
  /** The plan's slots, and the affected-rows slots of statements built here (the plan is shared). */
  protected readonly slots: Array<S | AffectedSlot>;

  /** `bind`: a slot's value as the kind sends it (never called for affected slots). */
  constructor(
    protected readonly plan: CompiledMutationProgram<S>,
    bind: (slot: S) => unknown,
  ) {
    this.slots = [...plan.slots];
    this.bound = plan.slots.map((s) => (isAffected(s) ? null : bind(s)));
  }

  // ---- What a kind says --------------------------------------------------------------------

  /** The kind's name in messages ("the MariaDB kind cannot ..."). */
  protected abstract readonly kindName: string;
  /** The condition that never holds. */
  protected abstract readonly falseSql: string;
  /** The keys of `table`. */
  protected abstract keys(table: TableRef): K | Promise<K>;
  /** Runs one statement within the request's deadline (none starts after it); errors as the driver gives them. */
  protected abstract timed(sql: string, params: unknown[]): Promise<Row[]>;
  /** A driver error as the engine's. */
  protected abstract engineError(e: unknown, sql: string): EngineError;
  /** The name of the unique key a duplicate-key error names, or null for any other error. */
  protected abstract duplicateKey(e: unknown): string | null;
  /** The n-th placeholder of a statement (from 0). */
  protected abstract placeholder(n: number): string;
  /** on_conflict's EXCLUDED value of a column the proposed row does not give. */
  protected abstract excludedDefault(column: string): string;
  /** The condition over `alias` matching the `affected` rows of `table` (at least one); `param` adds a value. */
  protected abstract affectedSql(alias: string, affected: Affected, table: TableRef, param: (v: unknown) => string): string;
  /** Writes an update's rows and gives their keys (the role's check is run after). */
  protected abstract update(write: UpdatePlan, key: string[]): Promise<KeyRow[]>;
  /** Finds and locks the rows `target` (over `alias`) selects, answering their `key` columns. */
  protected abstract targetsSql(table: TableRef, alias: string, target: Marked, key: string[]): Marked;
  protected abstract updateSql(table: TableRef, alias: string, set: Marked[], where: Marked): Marked;
  protected abstract deleteSql(table: TableRef, alias: string, where: Marked): Marked;
  /** One row's INSERT of `cols` (values as placeholders 0..n-1), answering the `wanted` columns of the written row. */
  protected abstract insertSql(table: TableRef, cols: readonly string[], wanted: readonly string[], keys: K): string;
  /** Finds and locks the row whose `match` columns hold their values, if `filter` (rendered) lets it be updated, answering the `select` columns. */
  protected abstract conflictingSql(table: TableRef, alias: string, select: string[], match: Array<[string, unknown]>, filter: BoundSql): BoundSql;
  protected abstract quoteTable(table: TableRef): string;

  // ---- The program -------------------------------------------------------------------------

  async run(): Promise<string> {
    const p = this.plan.program;
    if (p.kind === 'one') return this.one(p.write, p.ret);
    const out: string[] = [];
    for (const w of p.writes) out.push(await this.one(w, p.ret));
    return `[${out.join(',')}]`;
  }

  /** Marked text → the dialect's text and its values: `affected` rows of `table`, `excluded` the proposed row's values. */
  protected render(marked: Marked, table: TableRef, affected: Affected | null, excluded?: ReadonlyMap<string, unknown>): BoundSql {
    const params: unknown[] = [];
    const param = (v: unknown): string => {
      params.push(v);
      return this.placeholder(params.length - 1);
    };
    const sql = marked.replace(PROGRAM_MARKERS, (_m, n: string | undefined, col: string | undefined) => {
      if (col !== undefined) return excluded?.has(col) ? param(excluded.get(col)) : this.excludedDefault(col);
      const s = this.slots[Number(n)]!;
      if (!isAffected(s)) return param(this.bound[Number(n)]);
      if (!affected || affected.rows.length === 0) return this.falseSql;
      return this.affectedSql(s.alias, affected, table, param);
    });
    return { sql, params };
  }

  protected async exec(sql: string, params: unknown[]): Promise<Row[]> {
    try {
      return await this.timed(sql, params);
    } catch (e) {
      throw this.engineError(e, sql).atPath(this.plan.errorPath);
    }
  }

  /** The error for an update of the columns that identify a row, which the program could no longer find. */
  protected keyUpdateRefused(): EngineError {
    return new EngineError('not-supported', `the ${this.kindName} kind cannot update the columns that identify a row`, { path: this.plan.errorPath });
  }

  private async one(write: TablePlan, ret: ReturnPlan): Promise<string> {
    const keys = await this.keys(write.table);
    const needsRows = ret.output.kind === 'single' || ret.output.fields.some((f) => f.kind === 'returning');
    if (keys.key === null && (needsRows || write.kind !== 'insert')) {
      throw new EngineError('not-supported', `table ${this.quoteTable(write.table)} has no primary or unique key to find the rows a mutation writes`, { path: this.plan.errorPath });
    }
    const key = keys.key ?? [];
    let affected: KeyRow[];
    let count: number;
    let answers: Map<string, string>;
    if (write.kind === 'insert') {
      const r = await this.insert(write, keys);
      affected = r.rows;
      count = r.count;
      answers = await this.answers(ret, write.table, { keys: key, rows: affected });
    } else if (write.kind === 'update') {
      affected = await this.update(write, key);
      if (write.set.length > 0 && write.check) await this.check(write.check, write.table, { keys: key, rows: affected });
      count = affected.length;
      answers = await this.answers(ret, write.table, { keys: key, rows: affected });
    } else {
      affected = await this.targets(write.table, write.alias, write.target, key);
      answers = await this.answers(ret, write.table, { keys: key, rows: affected });
      if (affected.length > 0) {
        const { sql, params } = this.render(this.deleteSql(write.table, write.alias, this.affectedMark(write.alias)), write.table, { keys: key, rows: affected });
        await this.exec(sql, params);
      }
      count = affected.length;
    }
    return this.output(ret, count, answers);
  }

  /** A marker for the affected-rows condition over `alias`, outside compiled statements. */
  protected affectedMark(alias: string): string {
    const index = this.slots.findIndex((s) => isAffected(s) && s.alias === alias);
    if (index >= 0) return slotMarker(index);
    this.slots.push({ kind: 'affected', alias });
    this.bound.push(null);
    return slotMarker(this.slots.length - 1);
  }

  protected async targets(table: TableRef, alias: string, target: Marked, key: string[]): Promise<KeyRow[]> {
    const { sql, params } = this.render(this.targetsSql(table, alias, target, key), table, null);
    return (await this.exec(sql, params)).map((r) => key.map((k) => r[k]));
  }

  private async check(marked: Marked, table: TableRef, affected: Affected): Promise<void> {
    if (affected.rows.length === 0) return;
    const { sql, params } = this.render(marked, table, affected);
    if ((await this.exec(sql, params)).length > 0) throw new EngineError('permission-error', CHECK_FAILED, { path: this.plan.errorPath });
  }

  /**
   * Inserts a table's rows (and, through relationships, their related rows), one statement per
   * row. `fixed[i]`: column values row i takes from its parent; `need`: columns the caller reads
   * back. Returns per row the written row's `need` and key columns (null: skipped by on_conflict).
   */
  private async insertTable(
    write: InsertPlan,
    keys: K,
    fixed: ReadonlyArray<ReadonlyMap<string, unknown>> | null,
    need: readonly string[],
  ): Promise<{ rows: Array<Row | null>; inserted: KeyRow[]; updated: KeyRow[]; count: number; key: string[] }> {
    const key = keys.key;
    if (key === null && write.check !== null) {
      throw new EngineError('not-supported', `table ${this.quoteTable(write.table)} has no primary or unique key to check inserted rows against the role's check`, { path: this.plan.errorPath });
    }
    const out: Array<Row | null> = [];
    const inserted: KeyRow[] = [];
    const updated: KeyRow[] = [];
    let count = 0;
    for (const [i, row] of write.rows.entries()) {
      const values = new Map<string, unknown>(row.columns.map((c, j) => [c, this.bound[row.valueSlots[j]!]] as const));
      for (const rel of row.before) {
        const target = await this.insertTable(rel.insert, await this.keys(rel.insert.table), null, rel.mapping.map(([, t]) => t));
        count += target.count;
        const related = target.rows[0] ?? null;
        for (const [parentColumn, targetColumn] of rel.mapping) values.set(parentColumn, related === null ? null : related[targetColumn]);
        if (rel.insert.check) await this.check(rel.insert.check, rel.insert.table, { keys: target.key, rows: [...target.inserted, ...target.updated] });
      }
      for (const [c, v] of fixed?.[i] ?? []) values.set(c, v);
      const wanted = [...new Set([...(key ?? []), ...need, ...row.after.flatMap((r) => r.mapping.map(([p]) => p))])];
      const sql = this.insertSql(write.table, [...values.keys()], wanted, keys);
      let written: Row | null = null;
      try {
        written = (await this.timed(sql, [...values.values()]))[0] ?? {};
        if (key) inserted.push(key.map((k) => written![k]));
        count++;
      } catch (e) {
        const oc = write.onConflict;
        const name = this.duplicateKey(e);
        if (!oc || name === null || (oc.constraint !== null && oc.constraint !== name)) throw this.engineError(e, sql).atPath(this.plan.errorPath);
        if (oc.set.length > 0) {
          written = await this.conflicting(write.table, oc.alias, oc.where, keys, name, values, wanted);
          if (written !== null) {
            const existing = key!.map((k) => written![k]);
            const upd = this.render(this.updateSql(write.table, oc.alias, oc.set, this.affectedMark(oc.alias)), write.table, { keys: key!, rows: [existing] }, values);
            await this.exec(upd.sql, upd.params);
            updated.push(existing);
            count++;
          }
        }
      }
      out.push(written);
      if (written === null) continue;
      for (const rel of row.after) {
        const childFixed = rel.insert.rows.map(() => new Map(rel.mapping.map(([p, t]) => [t, written![p]] as const)));
        const children = await this.insertTable(rel.insert, await this.keys(rel.insert.table), childFixed, []);
        count += children.count;
        if (rel.insert.check) await this.check(rel.insert.check, rel.insert.table, { keys: children.key, rows: [...children.inserted, ...children.updated] });
      }
    }
    return { rows: out, inserted, updated, count, key: key ?? [] };
  }

  private async insert(write: InsertPlan, keys: K): Promise<{ rows: KeyRow[]; count: number }> {
    const r = await this.insertTable(write, keys, null, []);
    if (keys.key) {
      if (write.check) await this.check(write.check, write.table, { keys: keys.key, rows: write.updateCheck ? r.inserted : [...r.inserted, ...r.updated] });
      if (write.updateCheck) await this.check(write.updateCheck, write.table, { keys: keys.key, rows: r.updated });
    }
    return { rows: [...r.inserted, ...r.updated], count: r.count };
  }

  /** The existing row a proposed row collided with on unique key `name`, if the update filter lets it be updated. */
  private async conflicting(
    table: TableRef,
    alias: string,
    where: Marked,
    keys: K,
    name: string,
    proposed: ReadonlyMap<string, unknown>,
    wanted: readonly string[],
  ): Promise<Row | null> {
    const cols = keys.uniques.get(name);
    if (!cols || !keys.key) throw new EngineError('constraint-error', `constraint "${name}" for table ${this.quoteTable(table)} does not exist`, { path: this.plan.errorPath });
    const match: Array<[string, unknown]> = [];
    for (const c of cols) {
      if (!proposed.has(c)) throw new EngineError('constraint-error', `the conflicting row cannot be found: column "${c}" of "${name}" was not given`, { path: this.plan.errorPath });
      match.push([c, proposed.get(c)]);
    }
    const filter = this.render(where, table, null);
    const { sql, params } = this.conflictingSql(table, alias, [...new Set([...keys.key, ...wanted])], match, filter);
    const found = await this.exec(sql, params);
    return found[0] ?? null;
  }

  private async answers(ret: ReturnPlan, table: TableRef, affected: Affected): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const [alias, marked] of ret.selects) {
      if (affected.rows.length === 0) {
        out.set(alias, '[]');
        continue;
      }
      const { sql, params } = this.render(marked, table, affected);
      const rows = await this.exec(sql, params);
      out.set(alias, String(rows[0]?.['root'] ?? '[]'));
    }
    return out;
  }

  private output(ret: ReturnPlan, count: number, answers: Map<string, string>): string {
    if (ret.output.kind === 'single') {
      const rows = JSON.parse(answers.get('') ?? '[]') as unknown[];
      return rows.length === 0 ? 'null' : JSON.stringify(rows[0]);
    }
    const parts = ret.output.fields.map((f) => {
      const value = f.kind === 'affectedRows' ? String(count) : f.kind === 'typename' ? JSON.stringify(f.typeName) : (answers.get(f.alias) ?? '[]');
      return `${JSON.stringify(f.alias)}:${value}`;
    });
    return `{${parts.join(',')}}`;
  }
}
