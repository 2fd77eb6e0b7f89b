/**
 * Runs a compiled mutation inside the request's transaction (see mutation.ts for the program).
 * The written rows are known by their key: the primary key, else the first unique key, read from
 * information_schema once per table and connection.
 */
import { EngineError, type TableRef } from '../../../../core/sdk/index.js';
import { duplicateKeyName, isDuplicateKey, mariaEngineError } from '../errors.js';
import type { Queryable, Row } from '../pool.js';
import type { InsertRowPlan, MariaCompiledMutation, Marked, ReturnPlan, TablePlan } from './mutation.js';
import { quoteIdent, quoteTable } from './quote.js';
import { bindSlots, type Slot } from './template.js';

const CHECK_FAILED = 'check constraint of an insert/update permission has failed';

export interface TableKeys {
  /** The columns that identify a row (primary key, else the first unique key); null: none. */
  key: string[] | null;
  /** Unique keys (and PRIMARY) by name. */
  uniques: Map<string, string[]>;
}

export type KeysOf = (q: Queryable, table: TableRef) => Promise<TableKeys>;

export async function readTableKeys(q: Queryable, table: TableRef): Promise<TableKeys> {
  const rows = await q.rows(
    `SELECT INDEX_NAME AS name, COLUMN_NAME AS col FROM information_schema.STATISTICS
      WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND NON_UNIQUE = 0 ORDER BY INDEX_NAME = 'PRIMARY' DESC, INDEX_NAME, SEQ_IN_INDEX`,
    [table.schema, table.name],
  );
  const uniques = new Map<string, string[]>();
  for (const r of rows) {
    const name = String(r['name']);
    const list = uniques.get(name) ?? [];
    list.push(String(r['col']));
    uniques.set(name, list);
  }
  const first = uniques.values().next();
  return { key: first.done ? null : first.value, uniques };
}

type KeyRow = unknown[];

// Slot and EXCLUDED markers (see template.ts): control characters no name can hold.
// eslint-disable-next-line no-control-regex
const MARK_RE = /\u0001(\d+)\u0001|\u0002([^\u0002]*)\u0002/g;

export class MutationRun {
  private readonly bound: unknown[];
  /** The plan's slots, and the affected-rows slots of statements built here (the plan is shared). */
  private readonly slots: Slot[];

  constructor(
    private readonly tx: Queryable,
    private readonly plan: MariaCompiledMutation,
    values: readonly unknown[],
    sessionJson: string,
    private readonly keysOf: KeysOf,
  ) {
    // Each slot's value once, as bindSlots prepares it; affected slots are expanded per statement.
    this.slots = [...plan.slots];
    this.bound = plan.slots.map((s) => (s.kind === 'affected' ? null : bindSlots([s], values, sessionJson)[0]));
  }

  /** Marked text → `?` text and its values; `affected` rows by `keys`, `excluded` the proposed row's values. */
  private render(marked: Marked, affected: { keys: string[]; rows: KeyRow[] } | null, excluded?: Map<string, number>): { sql: string; params: unknown[] } {
    const params: unknown[] = [];
    const sql = marked.replace(MARK_RE, (_m, n: string | undefined, col: string | undefined) => {
      if (col !== undefined) {
        const slot = excluded?.get(col);
        if (slot === undefined) return `DEFAULT(${quoteIdent(col)})`;
        params.push(this.bound[slot]);
        return '?';
      }
      const s: Slot = this.slots[Number(n)]!;
      if (s.kind !== 'affected') {
        params.push(this.bound[Number(n)]);
        return '?';
      }
      if (!affected || affected.rows.length === 0) return 'FALSE';
      const cols = affected.keys.map((k) => `${s.alias}.${quoteIdent(k)}`);
      const tuples = affected.rows.map((r) => {
        params.push(...r);
        return cols.length === 1 ? '?' : `(${cols.map(() => '?').join(', ')})`;
      });
      return `(${cols.length === 1 ? cols[0] : `(${cols.join(', ')})`} IN (${tuples.join(', ')}))`;
    });
    return { sql, params };
  }

  private async exec(sql: string, params: unknown[]): Promise<Row[]> {
    try {
      return await this.tx.rows(sql, params);
    } catch (e) {
      throw mariaEngineError(e, sql).atPath(this.plan.errorPath);
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
    const keys = await this.keysOf(this.tx, write.table);
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
      answers = await this.answers(ret, { keys: key, rows: affected });
    } else if (write.kind === 'update') {
      affected = await this.targets(write.table, write.alias, write.target, key);
      if (affected.length > 0 && write.set.length > 0) {
        if (write.setColumns.some((c) => key.includes(c))) {
          throw new EngineError('not-supported', 'the MariaDB kind cannot update the columns that identify a row', { path: this.plan.errorPath });
        }
        const { sql, params } = this.render(`UPDATE ${quoteTable(write.table)} AS ${write.alias} SET ${write.set.join(', ')} WHERE ${this.affectedMark(write.alias)}`, { keys: key, rows: affected });
        await this.exec(sql, params);
        if (write.check) await this.check(write.check, { keys: key, rows: affected });
      }
      count = affected.length;
      answers = await this.answers(ret, { keys: key, rows: affected });
    } else {
      affected = await this.targets(write.table, write.alias, write.target, key);
      answers = await this.answers(ret, { keys: key, rows: affected });
      if (affected.length > 0) {
        const { sql, params } = this.render(`DELETE ${write.alias} FROM ${quoteTable(write.table)} AS ${write.alias} WHERE ${this.affectedMark(write.alias)}`, { keys: key, rows: affected });
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
      `SELECT ${key.map((k) => `${alias}.${quoteIdent(k)}`).join(', ')} FROM ${quoteTable(table)} AS ${alias} WHERE ${target} FOR UPDATE`,
      null,
    );
    return (await this.exec(sql, params)).map((r) => key.map((k) => r[k]));
  }

  private async check(marked: Marked, affected: { keys: string[]; rows: KeyRow[] }): Promise<void> {
    if (affected.rows.length === 0) return;
    const { sql, params } = this.render(marked, affected);
    if ((await this.exec(sql, params)).length > 0) throw new EngineError('permission-error', CHECK_FAILED, { path: this.plan.errorPath });
  }

  private async insert(write: Extract<TablePlan, { kind: 'insert' }>, keys: TableKeys): Promise<{ rows: KeyRow[]; count: number }> {
    const key = keys.key;
    const inserted: KeyRow[] = [];
    const updated: KeyRow[] = [];
    let count = 0;
    for (const row of write.rows) {
      const cols = row.columns.map(quoteIdent).join(', ');
      let text = `INSERT INTO ${quoteTable(write.table)} (${cols}) VALUES (${row.values.join(', ')})`;
      if (key) text += ` RETURNING ${key.map(quoteIdent).join(', ')}`;
      const { sql, params } = this.render(text, null);
      try {
        const out = await this.tx.rows(sql, params);
        if (key && out[0]) inserted.push(key.map((k) => out[0]![k]));
        count++;
      } catch (e) {
        const oc = write.onConflict;
        const name = isDuplicateKey(e) ? duplicateKeyName(e) : null;
        if (!oc || name === null || (oc.constraint !== null && oc.constraint !== name)) throw mariaEngineError(e, sql).atPath(this.plan.errorPath);
        if (oc.set.length === 0) continue;
        const existing = await this.conflicting(write.table, oc.alias, oc.where, keys, name, row);
        if (existing === null) continue;
        const excluded = new Map(row.columns.map((c, i) => [c, row.valueSlots[i]!] as const));
        const upd = this.render(`UPDATE ${quoteTable(write.table)} AS ${oc.alias} SET ${oc.set.join(', ')} WHERE ${this.affectedMark(oc.alias)}`, { keys: key ?? [], rows: [existing] }, excluded);
        await this.exec(upd.sql, upd.params);
        updated.push(existing);
        count++;
      }
    }
    if (key) {
      if (write.check) await this.check(write.check, { keys: key, rows: write.updateCheck ? inserted : [...inserted, ...updated] });
      if (write.updateCheck) await this.check(write.updateCheck, { keys: key, rows: updated });
    }
    return { rows: [...inserted, ...updated], count };
  }

  /** The existing row a proposed row collided with on unique key `name`, if the update filter lets it be updated. */
  private async conflicting(table: TableRef, alias: string, where: Marked, keys: TableKeys, name: string, row: InsertRowPlan): Promise<KeyRow | null> {
    const cols = keys.uniques.get(name);
    if (!cols || !keys.key) throw new EngineError('constraint-error', `constraint "${name}" for table ${quoteTable(table)} does not exist`, { path: this.plan.errorPath });
    const match: string[] = [];
    const values: unknown[] = [];
    for (const c of cols) {
      const i = row.columns.indexOf(c);
      if (i < 0) throw new EngineError('constraint-error', `the conflicting row cannot be found: column "${c}" of "${name}" was not given`, { path: this.plan.errorPath });
      match.push(`${alias}.${quoteIdent(c)} = ?`);
      values.push(this.bound[row.valueSlots[i]!]);
    }
    const filter = this.render(where, null);
    const sql = `SELECT ${keys.key.map((k) => `${alias}.${quoteIdent(k)}`).join(', ')} FROM ${quoteTable(table)} AS ${alias} WHERE ${match.join(' AND ')} AND (${filter.sql}) FOR UPDATE`;
    const found = await this.exec(sql, [...values, ...filter.params]);
    return found[0] ? keys.key.map((k) => found[0]![k]) : null;
  }

  private async answers(ret: ReturnPlan, affected: { keys: string[]; rows: KeyRow[] }): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const [alias, marked] of ret.selects) {
      if (affected.rows.length === 0) {
        out.set(alias, '[]');
        continue;
      }
      const { sql, params } = this.render(marked, affected);
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
