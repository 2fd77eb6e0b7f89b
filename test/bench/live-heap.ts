/**
 * The live heap of an engine process started with `--inspect=127.0.0.1:<port>`: a full garbage
 * collection through the inspector protocol, then `process.memoryUsage()`. RSS alone overstates
 * what the engine keeps (V8 returns freed pages lazily); this says what a snapshot really holds.
 */
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';

export interface LiveHeap {
  heapUsedMb: number;
  rssMb: number;
}

/** The inspector's websocket URL, from the line Node prints to the process's log. */
export async function inspectorUrl(logFile: string, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // The last one: several engines of a run may share the log file.
    const m = [...readFileSync(logFile, 'utf8').matchAll(/Debugger listening on (ws:\/\/\S+)/g)].at(-1);
    if (m) return m[1]!;
    if (Date.now() > deadline) throw new Error(`no inspector URL in ${logFile}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function liveHeap(wsUrl: string): Promise<LiveHeap> {
  const ws = new WebSocket(wsUrl);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let id = 0;
  const call = (method: string, params: Record<string, unknown> = {}): Promise<{ result?: { result?: { value?: unknown } } }> =>
    new Promise((resolve, reject) => {
      const mine = ++id;
      const onMessage = (data: WebSocket.RawData) => {
        const msg = JSON.parse(data.toString()) as { id?: number; error?: { message: string } };
        if (msg.id !== mine) return;
        ws.off('message', onMessage);
        if (msg.error) reject(new Error(`${method}: ${msg.error.message}`));
        else resolve(msg as { result?: { result?: { value?: unknown } } });
      };
      ws.on('message', onMessage);
      ws.send(JSON.stringify({ id: mine, method, params }));
    });
  try {
    await call('HeapProfiler.enable');
    await call('HeapProfiler.collectGarbage');
    const res = await call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true });
    const usage = JSON.parse(String(res.result?.result?.value)) as { heapUsed: number; rss: number };
    return { heapUsedMb: usage.heapUsed / 2 ** 20, rssMb: usage.rss / 2 ** 20 };
  } finally {
    ws.close();
  }
}
