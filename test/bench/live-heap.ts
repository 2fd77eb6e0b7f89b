/**
 * The live heap of an engine process started with `--inspect=127.0.0.1:<port>`: a full garbage
 * collection through the inspector protocol, then `process.memoryUsage()`. RSS alone overstates
 * what the engine keeps (V8 returns freed pages lazily); this says what a snapshot really holds.
 */
import { createWriteStream, readFileSync } from 'node:fs';
import WebSocket from 'ws';

export interface LiveHeap {
  heapUsedMb: number;
  rssMb: number;
  /** V8's heap as committed (used and free pages), and memory outside it (Buffers, native). */
  heapTotalMb: number;
  externalMb: number;
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

type Call = (method: string, params?: Record<string, unknown>) => Promise<{ result?: { result?: { value?: unknown } } }>;

/** A session on the inspector at `wsUrl`: `use` gets the protocol's calls; `onEvent` its events. */
async function withInspector<T>(wsUrl: string, use: (call: Call) => Promise<T>, onEvent?: (method: string, params: Record<string, unknown>) => void): Promise<T> {
  const ws = new WebSocket(wsUrl);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  if (onEvent) {
    ws.on('message', (data: WebSocket.RawData) => {
      const msg = JSON.parse(data.toString()) as { method?: string; params?: Record<string, unknown> };
      if (msg.method) onEvent(msg.method, msg.params ?? {});
    });
  }
  let id = 0;
  const call: Call = (method, params = {}) =>
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
    return await use(call);
  } finally {
    ws.close();
  }
}

export async function liveHeap(wsUrl: string): Promise<LiveHeap> {
  return withInspector(wsUrl, async (call) => {
    await call('HeapProfiler.enable');
    await call('HeapProfiler.collectGarbage');
    const res = await call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true });
    const usage = JSON.parse(String(res.result?.result?.value)) as { heapUsed: number; rss: number; heapTotal: number; external: number };
    const mb = (bytes: number) => bytes / 2 ** 20;
    return { heapUsedMb: mb(usage.heapUsed), rssMb: mb(usage.rss), heapTotalMb: mb(usage.heapTotal), externalMb: mb(usage.external) };
  });
}

/** A heap snapshot of the process at `wsUrl` (after a full GC), written to `file`. */
export async function writeHeapSnapshotOf(wsUrl: string, file: string): Promise<void> {
  const out = createWriteStream(file);
  await withInspector(
    wsUrl,
    async (call) => {
      await call('HeapProfiler.enable');
      await call('HeapProfiler.collectGarbage');
      await call('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    },
    (method, params) => {
      if (method === 'HeapProfiler.addHeapSnapshotChunk') out.write(String(params.chunk));
    },
  );
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
}
