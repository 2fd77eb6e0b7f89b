/**
 * Response bodies gzipped as the reference engine does: every answer, at the fastest level, when
 * the client accepts gzip, whatever its size (browsers and GraphQL clients always ask).
 *
 * zlib's per-call set-up (a stream object, its native context, the window and hash tables) costs
 * the same whatever the body's size: gzipping a pk lookup's 91-byte answer cost the engine 35 µs
 * of CPU, against 105 µs for the whole request without it (docs/performance.md, "Gzip for short
 * answers"). A body under 1 KB gains nothing worth that: with its headers it fits one TCP segment
 * compressed or not, which is also why common HTTP compression middleware (and this engine's koa
 * routes) leaves bodies under 1 KB alone. Such a body is sent as a gzip member holding one
 * *stored* (uncompressed) deflate block: the same Content-Encoding as the reference sends, read
 * by every inflater, for a CRC and a copy (about 1 µs).
 */
import { promisify } from 'node:util';
import { constants as zlib, crc32, gzip, gzipSync, type ZlibOptions } from 'node:zlib';

const gzipAsync = promisify(gzip);

/** Bodies shorter than this go stored (see above). */
export const STORED_LIMIT = 1024;

/** Bodies longer than this are compressed on the thread pool; shorter ones inline, where the trip would cost more. */
export const INLINE_GZIP_LIMIT = 16 * 1024;

/** A gzip member's header (RFC 1952): magic, deflate, no flags, no time, no extra flags, unknown OS. */
const HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

/** The body gzipped: synchronously unless it is long enough to go to the thread pool. */
export function gzipBody(body: string): Buffer | Promise<Buffer> {
  const length = Buffer.byteLength(body);
  if (length < STORED_LIMIT) return storedMember(body, length);
  if (length > INLINE_GZIP_LIMIT) return gzipAsync(body, gzipOptionsFor(length));
  return gzipSync(body, gzipOptionsFor(length));
}

/**
 * The compressor's window and hash table sized to the body. zlib's defaults set up and zero about
 * 200 KB (a 32 KB window, its chain table, 64 KB of hash heads, the pending buffer) for every
 * answer, which at a server's pace is memory no recent request touched; for a 1.6 KB answer the
 * sized set-up is about 16 KB (stand-alone, with the cache swept between calls: 31-50 µs before,
 * 28-37 after; docs/performance.md, "Gzip for short answers"). A window at least as long as the
 * body and zlib's lookahead finds every match the default one does, so the bytes are the same
 * (tested on JSON answers from 1 byte to 64 KB); past 32 KB it is zlib's default.
 */
const OPTIONS_BY_BITS: ReadonlyArray<ZlibOptions> = Array.from({ length: 16 }, (_, bits) =>
  Object.freeze({ level: zlib.Z_BEST_SPEED, windowBits: Math.max(bits, 9), memLevel: Math.min(Math.max(bits - 7, 1), 8) }),
);

/** zlib's MIN_LOOKAHEAD (MAX_MATCH + MIN_MATCH + 1): the window keeps this much ahead of the input. */
const MIN_LOOKAHEAD = 262;

/** The options for a body of `length` bytes: the smallest window (9 to 15 bits) holding it and the lookahead. */
export function gzipOptionsFor(length: number): ZlibOptions {
  let bits = 9;
  while (bits < 15 && 1 << bits < length + MIN_LOOKAHEAD) bits++;
  return OPTIONS_BY_BITS[bits]!;
}

/**
 * One gzip member holding `body` (`length` UTF-8 bytes, under 65,536) in a single final stored
 * block (RFC 1951 §3.2.4: BFINAL=1, BTYPE=00, then LEN and its complement), followed by the
 * CRC-32 and length of the data.
 */
export function storedMember(body: string, length: number = Buffer.byteLength(body)): Buffer {
  if (length > 0xffff) throw new RangeError(`a stored block holds at most 65,535 bytes, not ${length}`);
  const out = Buffer.allocUnsafe(HEADER.length + 5 + length + 8);
  HEADER.copy(out, 0);
  let at = HEADER.length;
  out[at] = 1;
  out.writeUInt16LE(length, at + 1);
  out.writeUInt16LE(~length & 0xffff, at + 3);
  at += 5;
  out.write(body, at, 'utf8');
  out.writeUInt32LE(crc32(out.subarray(at, at + length)), at + length);
  out.writeUInt32LE(length, at + length + 4);
  return out;
}
