/**
 * HTTP without a socket: `inject` hands one request to the engine's real request listener (raw
 * routes, the koa app, every middleware) and reads the response the listener writes, as bytes
 * through a real `ServerResponse`. `bootTestEngine` builds the engine (kernel, metadata store,
 * schema cache, metadata service, listener) without listening on a port, so plugin tests can
 * make HTTP calls with only the plugins under test and stand-ins for the rest.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Duplex } from 'node:stream';
import { bootEngine, type EngineCore } from '../../core/engine.js';
import type { ServerConfig } from '../../core/config/types.js';
import { silentLogger } from '../../core/logger.js';
import { EngineError } from '../../core/errors.js';
import type { RequestListeners } from '../../core/http/app.js';
import type { MetadataStore, StoredMetadata } from '../../core/metadata/store.js';
import type { MetadataDocument } from '../../core/metadata/types.js';
import type { AnyPlugin } from '../../core/plugin.js';
import { testConfig } from './config.js';

export interface InjectRequest {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  /** Sent as JSON (with a JSON content type unless one is given); a string is sent as is. */
  body?: unknown;
  remoteAddress?: string;
}

export interface InjectResponse<T = unknown> {
  status: number;
  headers: Record<string, string | string[]>;
  /** The body as text (decoded from chunked transfer encoding when used). */
  text: string;
  /** The body parsed as JSON, or the text when it is not JSON. */
  body: T;
}

/** A stand-in for the connection: collects what the response writes. */
class CapturingSocket extends Duplex {
  readonly chunks: Buffer[] = [];
  constructor(readonly remoteAddress: string) {
    super();
  }
  override _read(): void {}
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.chunks.push(Buffer.from(chunk));
    cb();
  }
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
}

function parseRawResponse(raw: Buffer): { status: number; headers: Record<string, string | string[]>; body: Buffer } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, split).toString('latin1').split('\r\n');
  let body = raw.subarray(split + 4);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head[0]!)?.[1]);
  const headers: Record<string, string | string[]> = {};
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    const name = line.slice(0, i).toLowerCase();
    const value = line.slice(i + 1).trim();
    const had = headers[name];
    headers[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  if (headers['transfer-encoding'] === 'chunked') {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const eol = body.indexOf('\r\n', at);
      const size = parseInt(body.subarray(at, eol).toString('latin1'), 16);
      if (!size) break;
      parts.push(body.subarray(eol + 2, eol + 2 + size));
      at = eol + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  }
  return { status, headers, body };
}

/** Sends one request through `listener` (an engine's `listener`) and waits for the whole response. */
export function inject<T = any>(listener: Pick<RequestListeners, 'request'>, request: InjectRequest): Promise<InjectResponse<T>> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const socket = new CapturingSocket(request.remoteAddress ?? '127.0.0.1');
  const req = new IncomingMessage(socket as never);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(request.headers ?? {})) headers[k.toLowerCase()] = v;
  let payload: Buffer | null = null;
  if (request.body !== undefined) {
    payload = Buffer.from(typeof request.body === 'string' ? request.body : JSON.stringify(request.body));
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(payload.length);
  }
  headers['host'] ??= 'localhost';
  req.method = request.method ?? (payload ? 'POST' : 'GET');
  req.url = request.url;
  req.httpVersion = '1.1';
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  req.headers = headers;
  req.rawHeaders = Object.entries(headers).flat();
  if (payload) req.push(payload);
  req.push(null);
  // As the parser does once the body is in: an incomplete request destroys its socket when read.
  req.complete = true;

  const res = new ServerResponse(req);
  res.assignSocket(socket as never);
  return new Promise((resolve, reject) => {
    res.on('error', reject);
    res.on('finish', () => {
      const { status, headers: out, body } = parseRawResponse(Buffer.concat(socket.chunks));
      const text = body.toString('utf8');
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* plain-text bodies stay strings */
      }
      resolve({ status, headers: out, text, body: parsed as T });
    });
    listener.request(req, res);
  });
}

/** A MetadataStore in memory, for engines booted without the engine database. */
export class MemoryMetadataStore implements MetadataStore {
  private stored: StoredMetadata | null = null;
  async init(initial: () => MetadataDocument): Promise<number> {
    this.stored ??= { metadata: initial(), resourceVersion: 1 };
    return 1;
  }
  async read(): Promise<StoredMetadata> {
    if (!this.stored) throw new Error('MemoryMetadataStore.read before init');
    return structuredClone(this.stored);
  }
  async resourceVersion(): Promise<number> {
    return this.stored?.resourceVersion ?? 0;
  }
  async write(metadata: MetadataDocument, expected: number): Promise<number> {
    if (!this.stored || this.stored.resourceVersion !== expected) {
      throw new EngineError('conflict', 'resource version mismatch', { status: 409 });
    }
    this.stored = { metadata: structuredClone(metadata), resourceVersion: expected + 1 };
    return expected + 1;
  }
  async close(): Promise<void> {}
}

export interface TestEngineInit {
  plugins: AnyPlugin[];
  /** Container values registered after the plugins (a metadata store defaults to MemoryMetadataStore). */
  fakes?: Record<string, unknown>;
  config?: Partial<ServerConfig>;
  pluginOptions?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
}

export interface TestEngine extends EngineCore {
  /** `inject` through this engine's listener. */
  inject<T = any>(request: InjectRequest): Promise<InjectResponse<T>>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** The engine with only `plugins`, no port and (unless a fake says otherwise) metadata kept in memory. */
export async function bootTestEngine(init: TestEngineInit): Promise<TestEngine> {
  const core = await bootEngine(testConfig({ schemaSyncPollInterval: 0, ...init.config }), {
    logger: silentLogger(),
    env: init.env ?? {},
    plugins: { plugins: init.plugins, ...(init.pluginOptions ? { options: init.pluginOptions } : {}) },
    overrides: { metadataStore: new MemoryMetadataStore(), ...init.fakes },
  });
  return Object.assign(core, { inject: <T>(request: InjectRequest) => inject<T>(core.listener, request) });
}
