/**
 * Runs a compiled mutation inside the request's transaction: the SDK's MutationProgramRun with
 * SQL Server's statements. The written rows are known by their key: the primary key, else the
 * first unique key, from the source's last introspection.
 */
import { type Affected, type BoundSql, EngineError, type KeyRow, type Marked, MutationProgramRun, type TableKeys as KeyColumns, type TableRef, timeLimitExceeded, type UpdatePlan } from '../../../../core/sdk/index.js';
import { duplicateKeyName, isDuplicateKey, mssqlEngineError } from '../errors.js';
import type { Queryable, Row } from '../pool.js';
import type { MssqlCompiledMutation } from './mutation.js';
import { quoteIdent, quoteTable } from './quote.js';
import { bindSlots, type Slot } from './template.js';

export interface TableKeys extends KeyColumns {
  /** Column types as declared (`nvarchar(50)`), for table variables and reading keys back from JSON. */
  types: Map<string, string>;
}

export type KeysOf = (table: TableRef) => TableKeys;

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

/** SQL Server's statements: `@pN` parameters, UPDLOCK, OUTPUT INTO, the written rows as one JSON parameter. */
export class MutationRun extends MutationProgramRun<Slot, TableKeys> {
  protected readonly kindName = 'SQL Server';
  protected readonly falseSql = '1=0';
  protected readonly quoteTable = quoteTable;

  constructor(
    private readonly tx: Queryable,
    plan: MssqlCompiledMutation,
    values: readonly unknown[],
    sessionJson: string,
    private readonly keysOf: KeysOf,
    private readonly deadline?: number,
  ) {
    super(plan, (s) => bindSlots([s], values, sessionJson)[0]);
  }

  protected keys(table: TableRef): TableKeys {
    return this.keysOf(table);
  }

  /** None starts after the deadline, and the driver cancels a running one at it. */
  protected timed(sql: string, params: unknown[]): Promise<Row[]> {
    if (this.deadline !== undefined && this.deadline <= Date.now()) throw timeLimitExceeded({ path: this.plan.errorPath });
    return this.tx.rows(sql, params, this.deadline);
  }

  protected engineError(e: unknown, sql: string): EngineError {
    return mssqlEngineError(e, sql);
  }

  protected duplicateKey(e: unknown): string | null {
    return isDuplicateKey(e) ? duplicateKeyName(e) : null;
  }

  protected placeholder(n: number): string {
    return `@p${n}`;
  }

  protected excludedDefault(): string {
    return 'DEFAULT';
  }

  /** The rows' key tuples as ONE JSON parameter read with OPENJSON: SQL Server takes at most 2,100 parameters. */
  protected affectedSql(alias: string, affected: Affected, table: TableRef, param: (v: unknown) => string): string {
    const types = this.keysOf(table).types;
    const defs = affected.keys.map((k, i) => `[k${i}] ${types.get(k) ?? 'nvarchar(max)'} '$[${i}]'`);
    const match = affected.keys.map((k, i) => `${alias}.${quoteIdent(k)} = [_k].[k${i}]`).join(' AND ');
    return `EXISTS (SELECT 1 FROM OPENJSON(${param(JSON.stringify(affected.rows))}) WITH (${defs.join(', ')}) AS [_k] WHERE ${match})`;
  }

  /** One statement finds, locks and writes the rows, and tells their keys (OUTPUT INTO). */
  protected async update(write: UpdatePlan, key: string[]): Promise<KeyRow[]> {
    if (write.set.length === 0) return this.targets(write.table, write.alias, write.target, key);
    if (write.setColumns.some((c) => key.includes(c))) throw this.keyUpdateRefused();
    const out = key.map(quoteIdent);
    const types = this.keysOf(write.table).types;
    const { sql, params } = this.render(
      `DECLARE @svc_out TABLE (${key.map((k) => `${quoteIdent(k)} ${types.get(k) ?? 'nvarchar(max)'}`).join(', ')}); ` +
        `UPDATE ${write.alias} SET ${write.set.join(', ')} OUTPUT ${key.map((k) => `INSERTED.${quoteIdent(k)}`).join(', ')} INTO @svc_out ` +
        `FROM ${quoteTable(write.table)} AS ${write.alias} WHERE ${write.target}; SELECT ${out.join(', ')} FROM @svc_out`,
      write.table,
      null,
    );
    return (await this.exec(sql, params)).map((r) => key.map((k) => r[k]));
  }

  protected targetsSql(table: TableRef, alias: string, target: Marked, key: string[]): Marked {
    return `SELECT ${key.map((k) => `${alias}.${quoteIdent(k)}`).join(', ')} FROM ${quoteTable(table)} AS ${alias} WITH (UPDLOCK, ROWLOCK) WHERE ${target}`;
  }

  protected updateSql(table: TableRef, alias: string, set: Marked[], where: Marked): Marked {
    return `UPDATE ${alias} SET ${set.join(', ')} FROM ${quoteTable(table)} AS ${alias} WHERE ${where}`;
  }

  protected deleteSql(table: TableRef, alias: string, where: Marked): Marked {
    return `DELETE ${alias} FROM ${quoteTable(table)} AS ${alias} WHERE ${where}`;
  }

  protected insertSql(table: TableRef, cols: readonly string[], wanted: readonly string[], keys: TableKeys): string {
    return insertSql(table, cols, wanted, keys.types);
  }

  /** The filter's parameters come first, as its text does. */
  protected conflictingSql(table: TableRef, alias: string, select: string[], match: Array<[string, unknown]>, filter: BoundSql): BoundSql {
    const params = [...filter.params];
    const where = match.map(([c, v]) => {
      params.push(v);
      return `${alias}.${quoteIdent(c)} = @p${params.length - 1}`;
    });
    const sql = `SELECT TOP 1 ${select.map((k) => `${alias}.${quoteIdent(k)}`).join(', ')} FROM ${quoteTable(table)} AS ${alias} WITH (UPDLOCK, ROWLOCK) WHERE (${filter.sql}) AND ${where.join(' AND ')}`;
    return { sql, params };
  }
}
