/**
 * Writes finished attempts of one source's events in batches: while one write is in flight, new
 * outcomes queue up and go together in the next, so the event log takes two statements per batch
 * rather than two per event. A write that keeps failing is given up after a few tries: its events
 * stay locked and are delivered again after the lock timeout (at-least-once, never lost).
 */
import { type EventLog, type EventOutcome, type Logger } from '../../../core/sdk/index.js';

const ATTEMPTS = 3;
const MAX_BATCH = 500;

export class OutcomeWriter {
  private queue: EventOutcome[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly log: EventLog,
    private readonly logger: Logger,
  ) {}

  push(outcome: EventOutcome): void {
    this.queue.push(outcome);
    this.flushing ??= this.drain().finally(() => {
      this.flushing = null;
    });
  }

  /** Resolves once everything pushed so far is written (or given up). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      for (let attempt = 1; ; attempt++) {
        try {
          await this.log.record(batch);
          break;
        } catch (e) {
          if (attempt >= ATTEMPTS) {
            this.logger.error('event-trigger', {
              message: 'could not record delivery outcomes; the events stay locked and will be delivered again after the lock timeout',
              events: batch.length,
              error: String(e),
            });
            break;
          }
          await new Promise((r) => setTimeout(r, 100 * attempt));
        }
      }
    }
  }
}
