/**
 * The refusal every database kind gives when an operation's time limit passes (`api_limits.time_limit`,
 * carried to the kind as `RunOptions.deadline`): whether PostgreSQL cancelled the statement, SQL
 * Server's driver or MariaDB's `max_statement_time` stopped it, BigQuery timed out the job, or the
 * operation was still waiting for a connection. One code and one message across kinds, so a client
 * or an alert keyed on them works whichever source served the operation.
 */
import { EngineError, type EngineErrorInit } from '../errors.js';

export const TIME_LIMIT_EXCEEDED_MESSAGE = 'time limit exceeded: the operation ran past its time limit and its database work was stopped';

export function timeLimitExceeded(init?: Pick<EngineErrorInit, 'path' | 'internal'>): EngineError {
  return new EngineError('time-limit-exceeded', TIME_LIMIT_EXCEEDED_MESSAGE, init);
}

/**
 * `run`, or time-limit-exceeded once `deadline` (a Date.now() time) passes first. Only the engine
 * stops waiting: the kind must also stop the work in the database (a statement timeout, a job
 * timeout), or it runs on there.
 */
export async function giveUpAtDeadline<T>(run: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(timeLimitExceeded()), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([run, late]);
  } finally {
    clearTimeout(timer);
  }
}
