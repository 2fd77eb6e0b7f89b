/**
 * The claim-and-deliver loop of the background runners (event triggers, scheduled triggers,
 * async actions). Each round claims due work for the free delivery slots and starts delivering
 * it; a round that filled its batch is followed by another as soon as `refillAt` slots are free
 * (or the fetch interval passes), one that did not by a pause of the fetch interval. Stopping
 * claims nothing more, gives the deliveries in flight until the shutdown timeout, then aborts the
 * rest and waits until every one has settled, so the runner can put their work back.
 */

export interface DeliveryLoopOptions {
  /** Deliveries in flight at most. */
  poolSize: number;
  fetchIntervalMs: number;
  shutdownTimeoutMs: number;
  /**
   * After a full round, claim again once this many slots are free: claiming one item per freed
   * slot would cost a query per item. Default 1.
   */
  refillAt?: number;
}

export interface DeliveryRounds {
  /** Claims and starts delivering (`track`); true when a batch was full (more is likely due). */
  round(): Promise<boolean>;
  /** A round that threw: the loop goes on after the fetch interval. */
  roundFailed(error: unknown): void;
}

interface InFlight {
  controller: AbortController;
}

export class DeliveryLoop {
  private active = false;
  private loop: Promise<void> | null = null;
  private readonly inFlight = new Map<string, InFlight>();
  /** Ends the current pause early (stop, or a slot freed during a pause waiting for one). */
  private wake: (() => void) | null = null;
  private waitingForSlots = false;
  private settled: (() => void) | null = null;

  constructor(
    private readonly rounds: DeliveryRounds,
    private readonly options: DeliveryLoopOptions,
  ) {}

  get running(): boolean {
    return this.active;
  }

  /** Delivery slots free now. */
  get free(): number {
    return this.options.poolSize - this.inFlight.size;
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    this.loop = this.run();
  }

  /**
   * Takes a slot until `delivery` settles. `controller` is aborted when a stop's shutdown timeout
   * passes with the delivery still running.
   */
  track(id: string, controller: AbortController, delivery: Promise<unknown>): void {
    this.inFlight.set(id, { controller });
    void delivery
      .catch(() => undefined)
      .finally(() => {
        this.inFlight.delete(id);
        if (this.inFlight.size === 0) this.settled?.();
        if (this.waitingForSlots && this.free >= this.refillAt) this.wake?.();
      });
  }

  /**
   * Graceful stop: no new rounds; deliveries in flight get until the shutdown timeout, the rest
   * are aborted. Resolves once every delivery has settled, with the ids of those aborted.
   */
  async stop(): Promise<string[]> {
    if (!this.active) return [];
    this.active = false;
    this.wake?.();
    await this.loop;
    if (this.inFlight.size === 0) return [];
    await Promise.race([this.allSettled(), new Promise<void>((r) => setTimeout(r, this.options.shutdownTimeoutMs).unref())]);
    const aborted = [...this.inFlight.keys()];
    for (const f of this.inFlight.values()) f.controller.abort();
    while (this.inFlight.size > 0) await this.allSettled();
    return aborted;
  }

  private get refillAt(): number {
    return Math.max(1, Math.min(this.options.refillAt ?? 1, this.options.poolSize));
  }

  private allSettled(): Promise<void> {
    return new Promise<void>((r) => (this.settled = r));
  }

  private async run(): Promise<void> {
    while (this.active) {
      let full = false;
      try {
        full = await this.rounds.round();
      } catch (e) {
        this.rounds.roundFailed(e);
      }
      if (!this.active) break;
      if (!full) await this.pause(false);
      else if (this.free < this.refillAt) await this.pause(true);
    }
  }

  /** The fetch interval, cut short by a stop or (`forSlots`) by enough slots coming free. */
  private pause(forSlots: boolean): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = null;
        this.waitingForSlots = false;
        resolve();
      };
      const timer = setTimeout(done, this.options.fetchIntervalMs);
      this.wake = done;
      this.waitingForSlots = forSlots;
    });
  }
}
