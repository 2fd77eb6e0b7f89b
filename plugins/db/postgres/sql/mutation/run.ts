/**
 * Runs a compiled mutation program on one transaction's connection: statements in order, slots
 * filled from what earlier statements returned, the role's check verified after every write
 * (the caller's transaction rolls everything back on the first failure).
 */
import { EngineError } from '../../../../../core/sdk/index.js';
import type { PgQueryable } from '../../pool.js';
import { isStatementError } from '../../pg-errors.js';
import { queryEngineError } from '../../query-errors.js';
import { isCheckViolation } from './write.js';
import type { PgCompiledMutation, PgInsertNode, PgProgram, PgStatement, PgWrite } from './program.js';

export const CHECK_FAILED = 'check constraint of an insert/update permission has failed';

interface Written {
  /** Rows written, nested inserts included (`affected_rows`). */
  affected: number;
  /** Rows written into the node's own table. */
  own: number;
  /** Those rows, as one JSON array text. */
  rows: string;
}

/** `[a]`, `[]`, `[b, c]` → `[a,b, c]`, without parsing (json_agg's output is always `[...]`). */
function concatArrays(texts: string[]): string {
  const parts = texts.filter((t) => t !== '[]').map((t) => t.slice(1, -1));
  return `[${parts.join(',')}]`;
}

export class ProgramRun {
  private readonly slots: Array<string | null>;

  constructor(
    private readonly tx: PgQueryable,
    private readonly plan: PgCompiledMutation,
    /** The plan's params, bound for the driver. */
    private readonly bound: readonly unknown[],
    private readonly sessionJson: string,
    private readonly secrets: readonly string[],
  ) {
    this.slots = new Array<string | null>(plan.slotCount).fill(null);
  }

  run(): Promise<string> {
    return this.program(this.plan.program);
  }

  private async exec(st: PgStatement, path: string): Promise<Array<string | null>> {
    const values: unknown[] = [this.sessionJson];
    for (const a of st.args) values.push(a.kind === 'param' ? this.bound[a.index] : this.slots[a.slot]);
    let row: Array<string | null> | null;
    try {
      row = await this.tx.queryTextRow(st.text, values);
    } catch (e) {
      if (isCheckViolation(e)) throw new EngineError('permission-error', CHECK_FAILED, { path });
      const err = queryEngineError(e, st.text, this.secrets);
      throw isStatementError(e) ? err.atPath(path) : err;
    }
    if (!row) throw new EngineError('unexpected', 'a mutation statement returned no row', { status: 500, path });
    return row;
  }

  private static checked(flag: string | null | undefined, path: string): void {
    if (flag === 'f') throw new EngineError('permission-error', CHECK_FAILED, { path });
  }

  private async program(p: PgProgram): Promise<string> {
    switch (p.kind) {
      case 'constant':
        return p.json;
      case 'read': {
        const [out] = await this.exec(p.statement, p.path);
        return out ?? 'null';
      }
      case 'direct': {
        const [out, check] = await this.exec(p.statement, p.path);
        ProgramRun.checked(check, p.path);
        return out ?? 'null';
      }
      case 'staged': {
        const w = await this.write(p.write);
        this.slots[p.rowsSlot] = w.rows;
        this.slots[p.countSlot] = String(w.affected);
        const [out] = await this.exec(p.output, '$');
        return out ?? 'null';
      }
      case 'many': {
        const parts: string[] = [];
        for (const item of p.items) parts.push(await this.program(item));
        return `[${parts.join(',')}]`;
      }
    }
  }

  private async write(w: PgWrite): Promise<Written> {
    if (w.kind === 'insert') return this.node(w.node);
    return this.statement(w.statement, w.path);
  }

  /** A write statement: `[count, rows, check]`. */
  private async statement(st: PgStatement, path: string): Promise<Written> {
    const [count, rows, check] = await this.exec(st, path);
    ProgramRun.checked(check, path);
    const n = Number(count ?? 0);
    return { affected: n, own: n, rows: rows ?? '[]' };
  }

  private async node(node: PgInsertNode): Promise<Written> {
    if (node.kind === 'flat') return this.statement(node.statement, node.path);
    let affected = 0;
    let own = 0;
    const rows: string[] = [];
    for (const row of node.rows) {
      for (const b of row.before) {
        const r = await this.node(b.node);
        if (r.own === 0) {
          const message = `cannot proceed to insert object relation "${b.name}" since insert to table ${b.node.table} affects zero rows`;
          throw new EngineError('not-supported', message, { path: `${node.path}.${b.name}` });
        }
        affected += r.affected;
        this.slots[b.slot] = r.rows;
      }
      const w = await this.statement(row.statement, node.path);
      affected += w.affected;
      own += w.own;
      rows.push(w.rows);
      this.slots[row.slot] = w.rows;
      if (row.after.length > 0 && w.own === 0) {
        const message = `cannot proceed to insert array relations since insert to table ${node.table} affects zero rows`;
        throw new EngineError('not-supported', message, { path: node.path });
      }
      for (const a of row.after) affected += (await this.node(a)).affected;
    }
    return { affected, own, rows: concatArrays(rows) };
  }
}
