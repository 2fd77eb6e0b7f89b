/**
 * Scheduled event-log cleaners: one cron job per event trigger with a `cleanup_config` that is
 * not paused, following the metadata as it changes. Each occurrence is claimed in the source's
 * `event_log_cleanups` table first, so with several engines only one runs it; the run is recorded
 * there as `completed` (with its counts) or `dead`.
 */
import { type EventTriggerSupport, type Logger, type SchemaCache, everyOccurrence } from '../../../core/sdk/index.js';

interface Job {
  stop(): void;
}

export class ScheduledCleaners {
  private readonly jobs = new Map<string, Job>();

  constructor(
    private readonly support: (kind: string) => EventTriggerSupport | undefined,
    private readonly logger: Logger,
  ) {}

  /** Starts jobs for cleaners that appeared (or changed) and stops those that went away. */
  follow(cache: SchemaCache): void {
    const wanted = new Set<string>();
    for (const source of cache.sources.values()) {
      const support = this.support(source.kind);
      if (!support) continue;
      for (const table of source.tables.values()) {
        for (const trigger of table.eventTriggers?.values() ?? []) {
          const config = trigger.conf.cleanup_config;
          if (!config || config.paused || !trigger.cleanup) continue;
          const key = JSON.stringify([source.name, trigger.name, config]);
          wanted.add(key);
          if (this.jobs.has(key)) continue;
          const log = support.eventLog(source.connection);
          this.jobs.set(
            key,
            everyOccurrence(
              trigger.cleanup.schedule,
              async (at) => {
                if (!(await log.claimCleanupRun(trigger.name, at))) return;
                try {
                  const result = await log.cleanup({
                    triggerName: trigger.name,
                    olderThanHours: config.clear_older_than,
                    batchSize: config.batch_size,
                    timeoutSeconds: config.timeout,
                    cleanInvocationLogs: config.clean_invocation_logs,
                  });
                  await log.finishCleanupRun(trigger.name, at, result);
                } catch (e) {
                  await log.finishCleanupRun(trigger.name, at, null).catch(() => {});
                  throw e;
                }
              },
              (e) => this.logger.error('event-trigger', { message: 'scheduled event log cleanup failed', trigger: trigger.name, error: String(e) }),
            ),
          );
        }
      }
    }
    for (const [key, job] of this.jobs) {
      if (wanted.has(key)) continue;
      job.stop();
      this.jobs.delete(key);
    }
  }

  stopAll(): void {
    for (const job of this.jobs.values()) job.stop();
    this.jobs.clear();
  }
}
