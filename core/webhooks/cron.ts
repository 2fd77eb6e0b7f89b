/**
 * Cron schedules (five fields, UTC) for event-log cleaners and scheduled triggers: validation with
 * a clear message, and the next occurrences after a given time.
 */
import { CronExpressionParser } from 'cron-parser';

export class CronSchedule {
  private constructor(readonly expression: string) {}

  /** Throws an Error naming what is wrong with the expression. */
  static parse(expression: string): CronSchedule {
    const fields = expression.trim().split(/\s+/);
    if (fields.length !== 5) throw new Error(`invalid cron expression "${expression}": expected 5 fields, found ${fields.length}`);
    try {
      CronExpressionParser.parse(expression, { tz: 'UTC' });
    } catch (e) {
      throw new Error(`invalid cron expression "${expression}": ${(e as Error).message}`);
    }
    return new CronSchedule(expression);
  }

  /** The first occurrence strictly after `after`. */
  next(after: Date): Date {
    return CronExpressionParser.parse(this.expression, { tz: 'UTC', currentDate: after }).next().toDate();
  }

  /** The next `count` occurrences strictly after `after`. */
  upcoming(after: Date, count: number): Date[] {
    const it = CronExpressionParser.parse(this.expression, { tz: 'UTC', currentDate: after });
    return Array.from({ length: count }, () => it.next().toDate());
  }
}

/**
 * Runs `task` at each occurrence of `schedule` (given the occurrence's time) until stopped; a run
 * never overlaps the previous one, and occurrences missed while a run lasted are skipped.
 */
export function everyOccurrence(schedule: CronSchedule, task: (at: Date) => Promise<void>, onError: (e: unknown) => void): { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const arm = (): void => {
    if (stopped) return;
    const at = schedule.next(new Date());
    const wait = Math.max(0, at.getTime() - Date.now());
    // setTimeout caps at 2^31-1 ms; re-arm in steps for far-off occurrences.
    timer = setTimeout(() => {
      if (wait > MAX_TIMEOUT) return arm();
      task(at).catch(onError).finally(arm);
    }, Math.min(wait, MAX_TIMEOUT));
    timer.unref();
  };
  arm();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

const MAX_TIMEOUT = 2_147_483_647;
