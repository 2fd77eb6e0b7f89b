/**
 * Subscriptions answered without a database: root fields whose group can be polled (an
 * asynchronous action's result, `subscription { place_order(id: ...) { output errors } }`). As
 * in the reference, each subscriber is polled on its own every second and every answer is
 * pushed (no change detection) until the answer is final, then the subscription completes.
 */
import type { ExternalContext } from '../graphql/ir.js';
import type { RootStep } from '../graphql/execute/plan.js';
import type { SubscriberSink } from './poller.js';

/** The reference polls async action results every second. */
export const POLL_INTERVAL_MS = 1000;

type PolledStep = Extract<RootStep, { kind: 'remote' }> | Extract<RootStep, { kind: 'typename' }>;

/** The steps, when every one of them can be polled (and at least one is a field); else null. */
export function polledSteps(steps: readonly RootStep[]): PolledStep[] | null {
  let fields = 0;
  for (const s of steps) {
    if (s.kind === 'typename') continue;
    if (s.kind !== 'remote' || !s.part.group.poll) return null;
    fields++;
  }
  return fields > 0 ? (steps as PolledStep[]) : null;
}

/** One poll: the response's data as JSON text, and whether every field's answer is final. */
async function pollOnce(steps: readonly PolledStep[], ctx: ExternalContext): Promise<{ data: string; final: boolean }> {
  let final = true;
  const values = await Promise.all(
    steps.map(async (s) => {
      if (s.kind === 'typename') return JSON.stringify(s.value);
      const r = await s.part.group.poll!([s.part], ctx);
      if (!r.final) final = false;
      return r.values[0] ?? 'null';
    }),
  );
  return { data: `{${steps.map((s, i) => `${JSON.stringify(s.key)}:${values[i]}`).join(',')}}`, final };
}

export interface PolledSubscription {
  stop(): void;
}

/**
 * Runs the first poll (its failure is the caller's: the subscription does not start), then polls
 * on a timer. Later failures are pushed as `{"data":null,"errors":...}` and polling goes on.
 */
export async function startPolled(
  steps: readonly PolledStep[],
  ctx: ExternalContext,
  sink: SubscriberSink,
  errorsJson: (e: unknown) => string,
  intervalMs = POLL_INTERVAL_MS,
): Promise<PolledSubscription> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const finish = (): void => {
    stopped = true;
    clearTimeout(timer);
    sink.complete?.();
  };
  const first = await pollOnce(steps, ctx);
  sink.push(`{"data":${first.data}}`);
  if (first.final) {
    finish();
    return { stop: () => {} };
  }
  const tick = async (): Promise<void> => {
    if (stopped) return;
    try {
      const r = await pollOnce(steps, ctx);
      if (stopped) return;
      sink.push(`{"data":${r.data}}`);
      if (r.final) return finish();
    } catch (e) {
      if (stopped) return;
      sink.push(`{"data":null,"errors":${errorsJson(e)}}`);
    }
    timer = setTimeout(() => void tick(), intervalMs);
  };
  timer = setTimeout(() => void tick(), intervalMs);
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
