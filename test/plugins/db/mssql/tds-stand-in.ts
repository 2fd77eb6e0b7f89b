/**
 * A stand-in for SQL Server at the protocol level (TDS 7.4), just enough for the real mssql /
 * tedious client to connect and run statements: PRELOGIN (no encryption), LOGIN7 (any
 * credentials: LOGINACK), SQL batches and sp_executesql RPCs. It does not run T-SQL: each
 * statement is handed to `answer`, which returns the result sets to send back, every column sent
 * as NVARCHAR (NULL as NULL). What the client sent is kept: the statement text and, for an RPC,
 * the parameter declaration tedious wrote (`@p0 int,@p1 nvarchar(4000)`) and the raw values.
 */
import { createServer, type Server, type Socket } from 'node:net';

export type ResultSet = Array<Record<string, string | number | boolean | null>>;

export interface ReceivedStatement {
  kind: 'batch' | 'rpc';
  sql: string;
  /** sp_executesql's parameter declaration (RPC only). */
  declaration: string | null;
  /** Which connection sent it (numbered as they connect). */
  connection?: number;
}

/** Result sets, an error to send, or 'hang': no answer until the client sends an attention. */
export type Answer = (statement: ReceivedStatement) => ResultSet[] | Error | 'hang';

const PACKET = { SQL_BATCH: 0x01, RPC: 0x03, TABULAR: 0x04, ATTENTION: 0x06, TRANSACTION_MANAGER: 0x0e, LOGIN7: 0x10, PRELOGIN: 0x12 } as const;
/** Transaction-manager requests and the ENVCHANGE types answering them. */
const TM = { BEGIN: 5, COMMIT: 7, ROLLBACK: 8 } as const;
const TOKEN = { COLMETADATA: 0x81, ERROR: 0xaa, LOGINACK: 0xad, ROW: 0xd1, DONE: 0xfd, ENVCHANGE: 0xe3 } as const;
/** Latin1_General_CI_AS: LCID 1033 with case-insensitive, accent-sensitive flags, sort id 52. */
const COLLATION = Buffer.from([0x09, 0x04, 0xd0, 0x00, 0x34]);

function packet(type: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt8(type, 0);
  header.writeUInt8(0x01, 1); // end of message
  header.writeUInt16BE(payload.length + 8, 2);
  header.writeUInt8(1, 6);
  return Buffer.concat([header, payload]);
}

const ucs2 = (s: string): Buffer => Buffer.from(s, 'utf16le');

function bVarChar(s: string): Buffer {
  return Buffer.concat([Buffer.from([s.length]), ucs2(s)]);
}

function done(status: number, rows: number): Buffer {
  const b = Buffer.alloc(13);
  b.writeUInt8(TOKEN.DONE, 0);
  b.writeUInt16LE(status, 1);
  b.writeUInt16LE(0xc1, 3);
  b.writeBigUInt64LE(BigInt(rows), 5);
  return b;
}

function preloginResponse(): Buffer {
  // Options: VERSION (6 bytes) and ENCRYPTION (1 byte: 0x02, not supported), then the terminator.
  const options = Buffer.from([0x00, 0x00, 0x0b, 0x00, 0x06, 0x01, 0x00, 0x11, 0x00, 0x01, 0xff]);
  const data = Buffer.from([16, 0, 0x10, 0x27, 0, 0, 0x02]);
  return Buffer.concat([options, data]);
}

function loginResponse(): Buffer {
  const prog = bVarChar('svc stand-in');
  const body = Buffer.concat([Buffer.from([0x01]), Buffer.from([0x74, 0x00, 0x00, 0x04]), prog, Buffer.from([16, 0, 0, 0])]);
  const ack = Buffer.concat([Buffer.from([TOKEN.LOGINACK]), Buffer.alloc(2), body]);
  ack.writeUInt16LE(body.length, 1);
  // ENVCHANGE packet size 4096 (type 4: new and old values as B_VARCHAR).
  const env = Buffer.concat([Buffer.from([4]), bVarChar('4096'), bVarChar('4096')]);
  const envToken = Buffer.concat([Buffer.from([TOKEN.ENVCHANGE]), Buffer.alloc(2), env]);
  envToken.writeUInt16LE(env.length, 1);
  return Buffer.concat([ack, envToken, done(0, 0)]);
}

function resultSet(rows: ResultSet): Buffer {
  const columns = Object.keys(rows[0] ?? { '': null });
  const meta: Buffer[] = [Buffer.from([TOKEN.COLMETADATA]), Buffer.alloc(2)];
  meta[1]!.writeUInt16LE(columns.length);
  for (const c of columns) {
    // UserType (4), flags (2: nullable), NVARCHAR(4000) with its collation, the column name.
    meta.push(Buffer.from([0, 0, 0, 0, 0x01, 0x00, 0xe7, 0x40, 0x1f]), COLLATION, bVarChar(c));
  }
  const out: Buffer[] = [...meta];
  for (const r of rows) {
    out.push(Buffer.from([TOKEN.ROW]));
    for (const c of columns) {
      const v = r[c];
      if (v === null || v === undefined) out.push(Buffer.from([0xff, 0xff]));
      else {
        const data = ucs2(typeof v === 'boolean' ? (v ? '1' : '0') : String(v));
        const len = Buffer.alloc(2);
        len.writeUInt16LE(data.length);
        out.push(len, data);
      }
    }
  }
  return Buffer.concat(out);
}

function errorToken(message: string, number: number): Buffer {
  const body = Buffer.concat([Buffer.alloc(4), Buffer.from([1, 16]), Buffer.alloc(2), ucs2(message), bVarChar('stand-in'), bVarChar(''), Buffer.alloc(4)]);
  body.writeInt32LE(number, 0);
  body.writeUInt16LE(message.length, 6);
  const token = Buffer.concat([Buffer.from([TOKEN.ERROR]), Buffer.alloc(2), body]);
  token.writeUInt16LE(body.length, 1);
  return token;
}

/** The payload after ALL_HEADERS (a 4-byte total length first). */
const afterHeaders = (payload: Buffer): Buffer => payload.subarray(payload.readUInt32LE(0));

/** An NVARCHAR parameter value: PLP when its max length is 0xFFFF (MAX), else a 2-byte length. */
function readNVarChar(buf: Buffer, offset: number): { value: string | null; offset: number } {
  const maxLength = buf.readUInt16LE(offset + 1);
  offset += 1 + 2 + 5; // type, max length, collation
  if (maxLength !== 0xffff) {
    const len = buf.readUInt16LE(offset);
    if (len === 0xffff) return { value: null, offset: offset + 2 };
    return { value: buf.toString('utf16le', offset + 2, offset + 2 + len), offset: offset + 2 + len };
  }
  const total = buf.readBigUInt64LE(offset);
  offset += 8;
  if (total === 0xffffffffffffffffn) return { value: null, offset };
  const parts: Buffer[] = [];
  for (;;) {
    const chunk = buf.readUInt32LE(offset);
    offset += 4;
    if (chunk === 0) break;
    parts.push(buf.subarray(offset, offset + chunk));
    offset += chunk;
  }
  return { value: Buffer.concat(parts).toString('utf16le'), offset };
}

/** sp_executesql's statement and parameter declaration: its first two parameters. */
function readRpc(payload: Buffer): ReceivedStatement {
  const body = afterHeaders(payload);
  let offset = 0;
  // Procedure by id (0xFFFF, id) or by name.
  if (body.readUInt16LE(0) === 0xffff) offset = 4;
  else offset = 2 + body.readUInt16LE(0) * 2;
  offset += 2; // option flags
  const param = (): string | null => {
    const nameLength = body.readUInt8(offset);
    offset += 1 + nameLength * 2 + 1; // name, status flags
    const r = readNVarChar(body, offset);
    offset = r.offset;
    return r.value;
  };
  const sql = param() ?? '';
  const declaration = body.length > offset ? param() : null;
  return { kind: 'rpc', sql, declaration };
}

export class TdsStandIn {
  readonly received: ReceivedStatement[] = [];
  readonly logins: number[] = [];
  /** Session and transaction statements, answered with DONE, and transaction-manager requests (`TM begin`, ...). */
  readonly control: string[] = [];
  /** The connection of each `control` entry. */
  readonly controlConnections: number[] = [];
  private readonly ids = new Map<Socket, number>();
  /** Attentions received (a client cancelling a statement). */
  attentions = 0;
  /** Connections whose statement is left unanswered. */
  private readonly hanging = new Set<Socket>();
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly answer: Answer) {}

  async start(): Promise<void> {
    this.server = createServer((socket) => this.serve(socket));
    await new Promise<void>((ok) => this.server!.listen(0, '127.0.0.1', () => ok()));
    this.port = (this.server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((ok) => (this.server ? this.server.close(() => ok()) : ok()));
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    this.ids.set(socket, this.ids.size + 1);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    let message: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 8 && buffered.length >= buffered.readUInt16BE(2)) {
        const length = buffered.readUInt16BE(2);
        const type = buffered.readUInt8(0);
        const last = (buffered.readUInt8(1) & 0x01) === 0x01;
        message.push(buffered.subarray(8, length));
        buffered = buffered.subarray(length);
        if (last) {
          this.handle(socket, type, Buffer.concat(message));
          message = [];
        }
      }
    });
  }

  private handle(socket: Socket, type: number, payload: Buffer): void {
    switch (type) {
      case PACKET.PRELOGIN:
        socket.write(packet(PACKET.TABULAR, preloginResponse()));
        return;
      case PACKET.LOGIN7:
        this.logins.push(Date.now());
        socket.write(packet(PACKET.TABULAR, loginResponse()));
        return;
      case PACKET.ATTENTION:
        // The statement left hanging is ended (a final DONE), then the attention is acknowledged
        // in a message of its own: a DONE with DONE_ATTN (0x20).
        this.attentions++;
        if (this.hanging.delete(socket)) socket.write(packet(PACKET.TABULAR, done(0, 0)));
        socket.write(packet(PACKET.TABULAR, done(0x20, 0)));
        return;
      case PACKET.TRANSACTION_MANAGER: {
        const request = afterHeaders(payload).readUInt16LE(0);
        const descriptor = Buffer.from([1, 0, 0, 0, 0, 0, 0, 0]);
        const varbyte = (b: Buffer): Buffer => Buffer.concat([Buffer.from([b.length]), b]);
        let env: Buffer;
        if (request === TM.BEGIN) env = Buffer.concat([Buffer.from([8]), varbyte(descriptor), varbyte(Buffer.alloc(0))]);
        else env = Buffer.concat([Buffer.from([request === TM.COMMIT ? 9 : 10]), varbyte(Buffer.alloc(0)), varbyte(descriptor)]);
        this.controlConnections.push(this.ids.get(socket)!);
        this.control.push(request === TM.BEGIN ? 'TM begin' : request === TM.COMMIT ? 'TM commit' : request === TM.ROLLBACK ? 'TM rollback' : `TM ${request}`);
        const token = Buffer.concat([Buffer.from([TOKEN.ENVCHANGE]), Buffer.alloc(2), env]);
        token.writeUInt16LE(env.length, 1);
        socket.write(packet(PACKET.TABULAR, Buffer.concat([token, done(0, 0)])));
        return;
      }
      case PACKET.SQL_BATCH: {
        const sql = afterHeaders(payload).toString('utf16le');
        // The session options tedious sends after login (`set textsize ...`) and transaction
        // control: done, nothing to answer.
        if (/^\s*(set |begin tran|commit|rollback|if @@trancount)/i.test(sql)) {
          this.control.push(sql);
          this.controlConnections.push(this.ids.get(socket)!);
          socket.write(packet(PACKET.TABULAR, done(0, 0)));
        }
        else this.reply(socket, { kind: 'batch', sql, declaration: null, connection: this.ids.get(socket)! });
        return;
      }
      case PACKET.RPC:
        this.reply(socket, { ...readRpc(payload), connection: this.ids.get(socket)! });
        return;
    }
  }

  private reply(socket: Socket, statement: ReceivedStatement): void {
    // mssql's check of a pooled connection before lending it.
    const answer = statement.sql === 'SELECT 1;' ? [[{ '': 1 }]] : this.answer(statement);
    if (statement.sql !== 'SELECT 1;') this.received.push(statement);
    if (answer === 'hang') {
      this.hanging.add(socket);
      return;
    }
    if (answer instanceof Error) {
      const number = (answer as Error & { number?: number }).number ?? 50000;
      socket.write(packet(PACKET.TABULAR, Buffer.concat([errorToken(answer.message, number), done(0x02, 0)])));
      return;
    }
    const parts: Buffer[] = [];
    answer.forEach((rows, i) => {
      parts.push(resultSet(rows), done(0x10 | (i < answer.length - 1 ? 0x01 : 0), rows.length));
    });
    if (parts.length === 0) parts.push(done(0, 0));
    // Large answers go in several packets of at most 4096 bytes.
    const all = Buffer.concat(parts);
    for (let at = 0; at < all.length || at === 0; at += 4088) {
      const chunk = all.subarray(at, at + 4088);
      const p = packet(PACKET.TABULAR, chunk);
      if (at + 4088 < all.length) p.writeUInt8(0x00, 1);
      socket.write(p);
      if (all.length === 0) break;
    }
  }
}
