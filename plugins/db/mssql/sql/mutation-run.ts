/**
 * Runs a compiled mutation inside the request's transaction (see mutation.ts for the program).
 * The written rows are known by their key: the primary key, else the first unique key, from the
 * source's last introspection.
 */
import { EngineError, type TableRef } from '../../../../core/sdk/index.js';
import { duplicateKeyName, isDuplicateKey, mssqlEngineError } from '../errors.js';
import type { Queryable, Row } from '../pool.js';
import type { InsertPlan, Marked, ReturnPlan, TablePlan } from '../../../../core/sdk/index.js';
import type { MssqlCompiledMutation } from './mutation.js';
import { quoteIdent, quoteTable } from './quote.js';
import { bindSlots, type Slot } from './template.js';

const CHECK_FAILED = 'check constraint of an insert/update permission has failed';

export interface TableKeys {
  /** The columns that identify a row (primary key, else the first unique key); null: none. */
  key: string[] | null;
  /** Unique keys (and the primary key) by constraint or index name. */
  uniques: Map<string, string[]>;
  /** Column types as declared (`nvarchar(50)`), for table variables and reading keys back from JSON. */
  types: Map<string, string>;
}

export type KeysOf = (table: TableRef) => TableKeys;

type KeyRow = unknown[];

/**
 * One row's INSERT, giving back the `wanted` columns of the written row. OUTPUT goes INTO a table
 * variable (its columns are `wanted`, in order), read after: SQL Server refuses a bare OUTPUT on
 * a table with enabled triggers.
 */
export function insertSql(table: TableRef, cols: readonly string[], wanted: readonly string[], types: ReadonlyMap<string, string>): string {
  const values = cols.length === 0 ? ' DEFAULT VALUES' : ` VALUES (${cols.map((_c, j) => `@p${j}`).join(', ')})`;
  const into = cols.length === 0 ? '' : ` (${cols.map(quoteIdent).join(', ')})`;
  if (wanted.length === 0) return `INSERT INTO ${quoteTable(table)}${into}${values}`;
  const out = wanted.map(quoteIdent);
  const decl = wanted.map((c) => `${quoteIdent(c)} ${types.get(c) ?? 'nvarchar(max)'}`);
  return (
    `DECLARE @svc_out TABLE (${decl.join(', ')}); ` +
    `INSERT INTO ${quoteTable(table)}${into} OUTPUT ${wanted.map((c) => `INSERTED.${quoteIdent(c)}`).join(', ')} INTO @svc_out${values}; ` +
    `SELECT ${out.join(', ')} FROM @svc_out`
  );
}
type Affected = { keys: string[]; rows: KeyRow[] };

// Slot and EXCLUDED markers (see template.ts): control characters no name can hold.
// eslint-disable-next-line no-control-regex
const MARK_RE = /\u0001(\d+)\u0001|\u0002([^\u0002]*)\u0002/g;

export class MutationRun {
  private readonly bound: unknown[];
  /** The plan's slots, and the affected-rows slots of statements built here (the plan is shared). */
  private readonly slots: Slot[];

  constructor(
    private readonly tx: Queryable,
    private readonly plan: MssqlCompiledMutation,
    values: readonly unknown[],
    sessionJson: string,
    private readonly keysOf: KeysOf,
    private readonly deadline?: number,
  ) {
    // Each slot's value once, as bindSlots prepares it; affected slots are expanded per statement.
    this.slots = [...plan.slots];
    this.bound = plan.slots.map((s) => (s.kind === 'affected' ? null : bindSlots([s], values, sessionJson)[0]));
  }

  /**
   * Marked text → `@pN` text and its values. `affected` rows match by their key through one JSON
   * parameter; `excluded` holds the proposed row's values (on_conflict's EXCLUDED).
   */
  private render(marked: Marked, table: TableRef | null, affected: Affected | null, excluded?: ReadonlyMap<string, unknown>): { sql: string; params: unknown[] } {
    const params: unknown[] = [];
    const param = (v: unknown): string => {
      params.push(v);
      return `@p${params.length - 1}`;
    };
    const sql = marked.replace(MARK_RE, (_m, n: string | undefined, col: string | undefined) => {
      if (col !== undefined) return excluded?.has(col) ? param(excluded.get(col)) : 'DEFAULT';
      const s: Slot = this.slots[Number(n)]!;
      if (s.kind !== 'affected') return param(this.bound[Number(n)]);
      if (!affected || affected.rows.length === 0 || table === null) return '1=0';
      const types = this.keysOf(table).types;
      const defs = affected.keys.map((k, i) => `[k${i}] ${types.get(k) ?? 'nvarchar(max)'} '$[${i}]'`);
      const match = affected.keys.map((k, i) => `${s.alias}.${quoteIdent(k)} = [_k].[k${i}]`).join(' AND ');
      return `EXISTS (SELECT 1 FROM OPENJSON(${param(JSON.stringify(affected.rows))}) WITH (${defs.join(', ')}) AS [_k] WHERE ${match})`;
    });
    return { sql, params };
  }

  /** Runs one statement of the program within the request's deadline: none starts after it, and a running one is cancelled. */
  private timed(sql: string, params: unknown[]): Promise<Row[]> {
    if (this.deadline !== undefined && this.deadline <= Date.now()) throw new EngineError('time-limit-exceeded', 'Time limit exceeded', { path: this.plan.errorPath });
    return this.tx.rows(sql, params, this.deadline);
  }

  private async exec(sql: string, params: unknown[]): Promise<Row[]> {
    try {
      return await this.timed(sql, params);
    } catch (e) {
      throw mssqlEngineError(e, sql).atPath(this.plan.errorPath);
    }
  }

  async run(): Promise<string> {
    const p = this.plan.program;
    if (p.kind === 'one') return this.one(p.write, p.ret);
    const out: string[] = [];
    for (const w of p.writes) out.push(await this.one(w, p.ret));
    return `[${out.join(',')}]`;
  }

  private async one(write: TablePlan, ret: ReturnPlan): Promise<string> {
    const keys = this.keysOf(write.table);
    const needsRows = ret.output.kind === 'single' || ret.output.fields.some((f) => f.kind === 'returning');
    if (keys.key === null && (needsRows || write.kind !== 'insert')) {
      throw new EngineError('not-supported', `table ${quoteTable(write.table)} has no primary or unique key to find the rows a mutation writes`, { path: this.plan.errorPath });
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
      if (write.set.length === 0) affected = await this.targets(write.table, write.alias, write.target, key);
      else {
        if (write.setColumns.some((c) => key.includes(c))) {
          throw new EngineError('not-supported', 'the SQL Server kind cannot update the columns that identify a row', { path: this.plan.errorPath });
        }
        // One statement finds, locks and writes the rows, and tells their keys (OUTPUT INTO).
        const out = key.map(quoteIdent);
        const types = this.keysOf(write.table).types;
        const { sql, params } = this.render(
          `DECLARE @svc_out TABLE (${key.map((k) => `${quoteIdent(k)} ${types.get(k) ?? 'nvarchar(max)'}`).join(', ')}); ` +
            `UPDATE ${write.alias} SET ${write.set.join(', ')} OUTPUT ${key.map((k) => `INSERTED.${quoteIdent(k)}`).join(', ')} INTO @svc_out ` +
            `FROM ${quoteTable(write.table)} AS ${write.alias} WHERE ${write.target}; SELECT ${out.join(', ')} FROM @svc_out`,
          write.table,
          null,
        );
        affected = (await this.exec(sql, params)).map((r) => key.map((k) => r[k]));
        if (write.check) await this.check(write.check, write.table, { keys: key, rows: affected });
      }
      count = affected.length;
      answers = await this.answers(ret, write.table, { keys: key, rows: affected });
    } else {
      affected = await this.targets(write.table, write.alias, write.target, key);
      answers = await this.answers(ret, write.table, { keys: key, rows: affected });
      if (affected.length > 0) {
        const { sql, params } = this.render(`DELETE ${write.alias} FROM ${quoteTable(write.table)} AS ${write.alias} WHERE ${this.affectedMark(write.alias)}`, write.table, { keys: key, rows: affected });
        await this.exec(sql, params);
      }
      count = affected.length;
    }
    return this.output(ret, count, answers);
  }

  /** A marker for the affected-rows condition over `alias`, outside compiled statements. */
  private affectedMark(alias: string): string {
    const index = this.slots.findIndex((s) => s.kind === 'affected' && s.alias === alias);
    if (index >= 0) return `\u0001${index}\u0001`;
    this.slots.push({ kind: 'affected', alias });
    this.bound.push(null);
    return `\u0001${this.slots.length - 1}\u0001`;
  }

  private async targets(table: TableRef, alias: string, target: Marked, key: string[]): Promise<KeyRow[]> {
    const { sql, params } = this.render(
      `SELECT ${key.map((k) => `${alias}.${quoteIdent(k)}`).join(', ')} FROM ${quoteTable(table)} AS ${alias} WITH (UPDLOCK, ROWLOCK) WHERE ${target}`,
      table,
      null,
    );
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
    keys: TableKeys,
    fixed: ReadonlyArray<ReadonlyMap<string, unknown>> | null,
    need: readonly string[],
  ): Promise<{ rows: Array<Row | null>; inserted: KeyRow[]; updated: KeyRow[]; count: number; key: string[] }> {
    const key = keys.key;
    if (key === null && write.check !== null) {
      throw new EngineError('not-supported', `table ${quoteTable(write.table)} has no primary or unique key to check inserted rows against the role's check`, { path: this.plan.errorPath });
    }
    const out: Array<Row | null> = [];
    const inserted: KeyRow[] = [];
    const updated: KeyRow[] = [];
    let count = 0;
    for (const [i, row] of write.rows.entries()) {
      const values = new Map<string, unknown>(row.columns.map((c, j) => [c, this.bound[row.valueSlots[j]!]] as const));
      for (const rel of row.before) {
        const target = await this.insertTable(rel.insert, this.keysOf(rel.insert.table), null, rel.mapping.map(([, t]) => t));
        count += target.count;
        const related = target.rows[0] ?? null;
        for (const [parentColumn, targetColumn] of rel.mapping) values.set(parentColumn, related === null ? null : related[targetColumn]);
        if (rel.insert.check) await this.check(rel.insert.check, rel.insert.table, { keys: target.key, rows: [...target.inserted, ...target.updated] });
      }
      for (const [c, v] of fixed?.[i] ?? []) values.set(c, v);
      const wanted = [...new Set([...(key ?? []), ...need, ...row.after.flatMap((r) => r.mapping.map(([p]) => p))])];
      const cols = [...values.keys()];
      const sql = insertSql(write.table, cols, wanted, keys.types);
      let written: Row | null = null;
      try {
        written = (await this.timed(sql, [...values.values()]))[0] ?? {};
        if (key) inserted.push(key.map((k) => written![k]));
        count++;
      } catch (e) {
        const oc = write.onConflict;
        const name = isDuplicateKey(e) ? duplicateKeyName(e) : null;
        if (!oc || name === null || (oc.constraint !== null && oc.constraint !== name)) throw mssqlEngineError(e, sql).atPath(this.plan.errorPath);
        if (oc.set.length > 0) {
          written = await this.conflicting(write.table, oc.alias, oc.where, keys, name, values, wanted);
          if (written !== null) {
            const existing = key!.map((k) => written![k]);
            const upd = this.render(
              `UPDATE ${oc.alias} SET ${oc.set.join(', ')} FROM ${quoteTable(write.table)} AS ${oc.alias} WHERE ${this.affectedMark(oc.alias)}`,
              write.table,
              { keys: key!, rows: [existing] },
              values,
            );
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
        const children = await this.insertTable(rel.insert, this.keysOf(rel.insert.table), childFixed, []);
        count += children.count;
        if (rel.insert.check) await this.check(rel.insert.check, rel.insert.table, { keys: children.key, rows: [...children.inserted, ...children.updated] });
      }
    }
    return { rows: out, inserted, updated, count, key: key ?? [] };
  }

  private async insert(write: InsertPlan, keys: TableKeys): Promise<{ rows: KeyRow[]; count: number }> {
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
    keys: TableKeys,
    name: string,
    proposed: ReadonlyMap<string, unknown>,
    wanted: readonly string[],
  ): Promise<Row | null> {
    const cols = keys.uniques.get(name);
    if (!cols || !keys.key) throw new EngineError('constraint-error', `constraint "${name}" for table ${quoteTable(table)} does not exist`, { path: this.plan.errorPath });
    const filter = this.render(where, table, null);
    const params = [...filter.params];
    const match: string[] = [];
    for (const c of cols) {
      if (!proposed.has(c)) throw new EngineError('constraint-error', `the conflicting row cannot be found: column "${c}" of "${name}" was not given`, { path: this.plan.errorPath });
      params.push(proposed.get(c));
      match.push(`${alias}.${quoteIdent(c)} = @p${params.length - 1}`);
    }
    const select = [...new Set([...keys.key, ...wanted])].map((k) => `${alias}.${quoteIdent(k)}`).join(', ');
    const sql = `SELECT TOP 1 ${select} FROM ${quoteTable(table)} AS ${alias} WITH (UPDLOCK, ROWLOCK) WHERE (${filter.sql}) AND ${match.join(' AND ')}`;
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
