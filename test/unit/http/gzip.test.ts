/**
 * Response bodies are gzipped (core/http/gzip.ts): short ones as a stored deflate block, the rest
 * by zlib with its window sized to the body. Whatever the path, every inflater must read back
 * exactly the body, including multi-byte UTF-8 text, at and around the limits between the paths;
 * and the sized window must give the bytes zlib's default one gives.
 */
import { expect } from 'chai';
import { constants, gunzipSync, gzipSync, inflateRawSync } from 'node:zlib';
import { INLINE_GZIP_LIMIT, STORED_LIMIT, gzipBody, gzipOptionsFor, storedMember } from '../../../core/http/gzip.js';

/** A JSON answer of `n` UTF-16 units, with some multi-byte characters when `wide`. */
function answerOf(n: number, wide = false): string {
  const rows = Array.from({ length: Math.ceil(n / 40) + 1 }, (_, i) => ({ id: i, name: wide ? `Zoë ${i} – 東京` : `author ${i}` }));
  return JSON.stringify({ data: { rows } }).slice(0, n);
}

async function gunzipped(body: string): Promise<{ text: string; stored: boolean }> {
  const zipped = await gzipBody(body);
  // A stored member's deflate data starts with a final block of type 00: the header byte is 1.
  return { text: gunzipSync(zipped).toString('utf8'), stored: zipped[10] === 1 };
}

describe('gzipped response bodies', () => {
  it('reads back every body, stored below the limit and deflated from it on', async () => {
    const sizes = [0, 1, 2, 60, STORED_LIMIT - 2, STORED_LIMIT - 1, STORED_LIMIT, STORED_LIMIT + 1, 1000, INLINE_GZIP_LIMIT, INLINE_GZIP_LIMIT + 1, 70_000];
    for (const n of sizes) {
      const body = answerOf(n);
      const { text, stored } = await gunzipped(body);
      expect(text, `${n} bytes`).to.equal(body);
      expect(stored, `${n} bytes`).to.equal(Buffer.byteLength(body) < STORED_LIMIT);
    }
  });

  it('counts the stored length in UTF-8 bytes, not characters', async () => {
    for (let n = 1; n < STORED_LIMIT; n += 7) {
      const body = answerOf(n, true);
      expect(Buffer.byteLength(body)).to.be.greaterThanOrEqual(body.length);
      const { text } = await gunzipped(body);
      expect(text).to.equal(body);
    }
  });

  it('writes a valid gzip member: header, one final stored block, CRC-32 and length', () => {
    const member = storedMember('{"data":{}}');
    expect([...member.subarray(0, 4)]).to.deep.equal([0x1f, 0x8b, 8, 0]);
    // The deflate data alone is a complete raw stream.
    expect(inflateRawSync(member.subarray(10, member.length - 8)).toString()).to.equal('{"data":{}}');
    expect(member.readUInt32LE(member.length - 4)).to.equal(11);
    // A wrong CRC is refused by the inflater: the trailer is checked, so it must be right.
    const broken = Buffer.from(member);
    broken[broken.length - 8] ^= 0xff;
    expect(() => gunzipSync(broken)).to.throw();
    // LEN is 16 bits: a longer body cannot be one stored block.
    expect(storedMember('x'.repeat(65_535)).length).to.equal(65_535 + 23);
    expect(() => storedMember('x'.repeat(65_536))).to.throw(RangeError);
  });
});

describe('gzip options sized to the response body', () => {
  it("give the bytes zlib's default window gives, from 1 byte to 64 KB", () => {
    const sizes: number[] = [];
    for (let n = 1; n < 65_536; n = Math.ceil(n * 1.09) + 1) sizes.push(n);
    // Around each window's edge, where the choice of window changes.
    for (let bits = 9; bits <= 15; bits++) sizes.push((1 << bits) - 263, (1 << bits) - 262, (1 << bits) - 261);
    for (const n of sizes) {
      const body = answerOf(n);
      const sized = gzipSync(body, gzipOptionsFor(Buffer.byteLength(body)));
      expect(gunzipSync(sized).toString(), `${n} bytes`).to.equal(body);
      expect(sized.equals(gzipSync(body, { level: constants.Z_BEST_SPEED })), `${n} bytes`).to.equal(true);
    }
  });

  it('use the smallest window that holds the body, and zlib defaults past 32 KB', () => {
    expect(gzipOptionsFor(1_024)).to.include({ windowBits: 11, memLevel: 4, level: constants.Z_BEST_SPEED });
    expect(gzipOptionsFor(1_786)).to.include({ windowBits: 11 });
    expect(gzipOptionsFor(1_787)).to.include({ windowBits: 12 });
    expect(gzipOptionsFor(32_506)).to.include({ windowBits: 15, memLevel: 8 });
    expect(gzipOptionsFor(10_000_000)).to.include({ windowBits: 15, memLevel: 8 });
  });
});
