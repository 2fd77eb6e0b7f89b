/** Polls for a condition with a deadline, instead of sleeping a fixed time on a loaded machine. */
export async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  opts: { timeoutMs: number; intervalMs?: number; what: () => string },
): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${opts.what()}`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}
