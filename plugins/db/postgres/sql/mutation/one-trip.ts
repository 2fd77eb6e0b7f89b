/**
 * A mutation request in ONE round trip. When no statement of the batch needs what an earlier one
 * returned (every field is a direct write, a VOLATILE function's select, or a list of direct
 * writes, which covers inserts without relationship inserts, updates and deletes whose answer
 * reads no relationship), the whole transaction is written at once: the session setting (so
 * triggers see `svc.user`) and each statement, which fails by itself when the role's check fails
 * (./write.ts), in one implicit transaction block (PgSourcePool.transactionInOneTrip). The first
 * failure stops everything after it in the database and rolls back the rest, so the semantics
 * are those of ProgramRun: one transaction for all fields, fields in request order, any failure
 * rolls every field back.
 */
import { EngineError } from '../../../../../core/sdk/index.js';
import type { PipelineRows, PipelineStep, PipelineStepError } from '../../pipeline.js';
import { isStatementError } from '../../pg-errors.js';
import { queryEngineError } from '../../query-errors.js';
import type { PgProgram, PgStatement } from './program.js';
import { CHECK_FAILED } from './run.js';
import { isCheckViolation } from './write.js';

/** What a step of the pipeline is, to answer from its rows or to explain its failure. */
type StepRole = { kind: 'session' } | { kind: 'statement'; text: string; path: string };

type Answer = (rows: PipelineRows) => string;

export class OneTripMutation {
  readonly steps: PipelineStep[] = [];
  private readonly roles: StepRole[] = [];
  private readonly answers: Answer[] = [];

  private constructor(session: PipelineStep) {
    this.steps.push(session);
    this.roles.push({ kind: 'session' });
  }

  /** The batch as one pipeline, or null when a statement reads an earlier one's rows (staged programs). */
  static of(batch: ReadonlyArray<{ program: PgProgram; bound: readonly unknown[] }>, session: PipelineStep, sessionJson: string): OneTripMutation | null {
    const trip = new OneTripMutation(session);
    for (const { program, bound } of batch) {
      const answer = trip.add(program, bound, sessionJson);
      if (answer === null) return null;
      trip.answers.push(answer);
    }
    return trip;
  }

  /** Each field's answer (JSON text), in batch order. */
  results(rows: PipelineRows): string[] {
    return this.answers.map((a) => a(rows));
  }

  /** The client-facing error of a failed step (index as PgSourcePool.transactionInOneTrip gives it). */
  error(e: PipelineStepError, secrets: readonly string[]): EngineError {
    const role = this.roles[e.index];
    if (role === undefined) return queryEngineError(e.cause, e.index < 0 ? 'BEGIN' : 'COMMIT', secrets);
    switch (role.kind) {
      case 'session':
        return queryEngineError(e.cause, this.steps[0]!.text, secrets);
      case 'statement': {
        if (isCheckViolation(e.cause)) return new EngineError('permission-error', CHECK_FAILED, { path: role.path });
        const err = queryEngineError(e.cause, role.text, secrets);
        return isStatementError(e.cause) ? err.atPath(role.path) : err;
      }
    }
  }

  private add(p: PgProgram, bound: readonly unknown[], sessionJson: string): Answer | null {
    switch (p.kind) {
      case 'constant':
        return () => p.json;
      case 'read':
      case 'direct': {
        const index = this.statement(p.statement, p.path, bound, sessionJson);
        if (index === null) return null;
        const path = p.path;
        return (rows) => {
          const row = rows[index]?.[0];
          if (row === undefined) throw new EngineError('unexpected', 'a mutation statement returned no row', { status: 500, path });
          return row[0] ?? 'null';
        };
      }
      case 'many': {
        const parts: Answer[] = [];
        for (const item of p.items) {
          const a = this.add(item, bound, sessionJson);
          if (a === null) return null;
          parts.push(a);
        }
        return (rows) => `[${parts.map((a) => a(rows)).join(',')}]`;
      }
      case 'staged':
        return null;
    }
  }

  /** Adds the statement; null when it reads a slot (an earlier statement's rows). */
  private statement(st: PgStatement, path: string, bound: readonly unknown[], sessionJson: string): number | null {
    const values: unknown[] = [sessionJson];
    for (const a of st.args) {
      if (a.kind !== 'param') return null;
      values.push(bound[a.index]);
    }
    this.steps.push({ text: st.text, values, name: st.name });
    this.roles.push({ kind: 'statement', text: st.text, path });
    return this.steps.length - 1;
  }
}
