/**
 * A real HTTP server in the test process that records every request (method, path, headers,
 * body) and answers with what the test's responder says (200 `{}` by default). `waitFor` polls
 * with a deadline instead of sleeping.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SinkRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  at: number;
}

export interface SinkAnswer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer (a hanging webhook); the socket is destroyed when the sink closes. */
  hang?: boolean;
}

export type Responder = (req: SinkRequest) => SinkAnswer | Promise<SinkAnswer>;

export interface WebhookSink {
  url: string;
  requests: SinkRequest[];
  respond(fn: Responder): void;
  waitFor(predicate: (requests: SinkRequest[]) => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookSink(): Promise<WebhookSink> {
  const requests: SinkRequest[] = [];
  let responder: Responder = () => ({});
  const open = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      const entry: SinkRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, text, json, at: Date.now() };
      requests.push(entry);
      void Promise.resolve(responder(entry)).then((a) => {
        if (a.hang) {
          open.add(res);
          return;
        }
        res.writeHead(a.status ?? 200, { 'content-type': 'application/json', ...(a.headers ?? {}) });
        res.end(a.body ?? '{}');
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond(fn) {
      responder = fn;
    },
    async waitFor(predicate, timeoutMs = 15000, what = 'webhook requests') {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(requests)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${requests.length} request(s)`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close() {
      for (const r of open) r.destroy();
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/** Polls `check` until it returns a value other than undefined, or fails after the deadline. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
