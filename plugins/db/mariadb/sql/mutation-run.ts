/**
 * Runs a compiled mutation inside the request's transaction: the SDK's MutationProgramRun with
 * MariaDB's statements. The written rows are known by their key: the primary key, else the first
 * unique key, read from information_schema once per table and connection.
 */
import { type Affected, type BoundSql, EngineError, type KeyRow, type Marked, MutationProgramRun, type TableKeys, type TableRef, timeLimitExceeded, type UpdatePlan } from '../../../../core/sdk/index.js';
import { duplicateKeyName, isDuplicateKey, mariaEngineError } from '../errors.js';
import type { Queryable, Row } from '../pool.js';
import type { MariaCompiledMutation } from './mutation.js';
import { quoteIdent, quoteTable } from './quote.js';
import { bindSlots, type Slot } from './template.js';

export type { TableKeys };

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

/** MariaDB's statements: `?` placeholders, FOR UPDATE locks, RETURNING, SET STATEMENT time limits. */
export class MutationRun extends MutationProgramRun<Slot> {
  protected readonly kindName = 'MariaDB';
  protected readonly falseSql = 'FALSE';
  protected readonly quoteTable = quoteTable;

  constructor(
    private readonly tx: Queryable,
    plan: MariaCompiledMutation,
    values: readonly unknown[],
    sessionJson: string,
    private readonly keysOf: KeysOf,
    private readonly deadline?: number,
  ) {
    super(plan, (s) => bindSlots([s], values, sessionJson)[0]);
  }

  protected keys(table: TableRef): Promise<TableKeys> {
    return this.keysOf(this.tx, table);
  }

  /** The server stops a statement running past the deadline (whole seconds); the transaction then rolls back. */
  protected timed(sql: string, params: unknown[]): Promise<Row[]> {
    if (this.deadline === undefined) return this.tx.rows(sql, params);
    const left = this.deadline - Date.now();
    if (left <= 0) throw timeLimitExceeded({ path: this.plan.errorPath });
    return this.tx.rows(`SET STATEMENT max_statement_time=${Math.ceil(left / 1000)} FOR ${sql}`, params);
  }

  protected engineError(e: unknown, sql: string): EngineError {
    return mariaEngineError(e, sql);
  }

  protected duplicateKey(e: unknown): string | null {
    return isDuplicateKey(e) ? duplicateKeyName(e) : null;
  }

  protected placeholder(): string {
    return '?';
  }

  protected excludedDefault(column: string): string {
    return `DEFAULT(${quoteIdent(column)})`;
  }

  /** The rows by their key values, one placeholder each: `(k IN (?, ?))`, `((k1, k2) IN ((?, ?), ..))`. */
  protected affectedSql(alias: string, affected: Affected, _table: TableRef, param: (v: unknown) => string): string {
    const cols = affected.keys.map((k) => `${alias}.${quoteIdent(k)}`);
    const tuples = affected.rows.map((r) => (cols.length === 1 ? param(r[0]) : `(${r.map(param).join(', ')})`));
    return `(${cols.length === 1 ? cols[0] : `(${cols.join(', ')})`} IN (${tuples.join(', ')}))`;
  }

  /** No UPDATE .. RETURNING: the rows are found and locked first, then written by their key. */
  protected async update(write: UpdatePlan, key: string[]): Promise<KeyRow[]> {
    const affected = await this.targets(write.table, write.alias, write.target, key);
    if (affected.length > 0 && write.set.length > 0) {
      if (write.setColumns.some((c) => key.includes(c))) throw this.keyUpdateRefused();
      const { sql, params } = this.render(this.updateSql(write.table, write.alias, write.set, this.affectedMark(write.alias)), write.table, { keys: key, rows: affected });
      await this.exec(sql, params);
    }
    return affected;
  }

  protected targetsSql(table: TableRef, alias: string, target: Marked, key: string[]): Marked {
    return `SELECT ${key.map((k) => `${alias}.${quoteIdent(k)}`).join(', ')} FROM ${quoteTable(table)} AS ${alias} WHERE ${target} FOR UPDATE`;
  }

  protected updateSql(table: TableRef, alias: string, set: Marked[], where: Marked): Marked {
    return `UPDATE ${quoteTable(table)} AS ${alias} SET ${set.join(', ')} WHERE ${where}`;
  }

  protected deleteSql(table: TableRef, alias: string, where: Marked): Marked {
    return `DELETE ${alias} FROM ${quoteTable(table)} AS ${alias} WHERE ${where}`;
  }

  protected insertSql(table: TableRef, cols: readonly string[], wanted: readonly string[]): string {
    const sql = `INSERT INTO ${quoteTable(table)} (${cols.map(quoteIdent).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`;
    return wanted.length > 0 ? `${sql} RETURNING ${wanted.map(quoteIdent).join(', ')}` : sql;
  }

  protected conflictingSql(table: TableRef, alias: string, select: string[], match: Array<[string, unknown]>, filter: BoundSql): BoundSql {
    const where = match.map(([c]) => `${alias}.${quoteIdent(c)} = ?`).join(' AND ');
    return {
      sql: `SELECT ${select.map((k) => `${alias}.${quoteIdent(k)}`).join(', ')} FROM ${quoteTable(table)} AS ${alias} WHERE ${where} AND (${filter.sql}) FOR UPDATE`,
      params: [...match.map(([, v]) => v), ...filter.params],
    };
  }
}
