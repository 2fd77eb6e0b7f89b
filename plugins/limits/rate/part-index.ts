/**
 * A scope's keys (counter-key.ts: the user id, the IP), each to its row in the key table
 * (key-rows.ts), found by a 64-bit fingerprint of the key in an open-addressed table.
 *
 * With a limit per user, nearly every request looks up a key no recent request touched. A `Map`
 * of strings then costs three cache misses before the row's own (its bucket, the entry, the stored
 * key string it compares against): measured in place, 1.1-1.2 µs of a request's ~67 µs, the
 * largest single part of the limit's cost (docs/performance.md, "Measured in place instead of by
 * difference"). Here a slot holds the fingerprint and the row together, 16 bytes, so a lookup is
 * one miss and no stored string is read.
 *
 * The price is that two keys of one scope with the same fingerprint share a row, and so their
 * free operations and lease. The fingerprint is two independent 32-bit hashes seeded per
 * process: over a million distinct keys in a scope, a shared row happens with a chance of about
 * 3 in 100 million (the birthday bound, n² / 2⁶⁵), and then costs two users part of one limit,
 * within the tolerance rate limits already have across instances. Nobody can aim for it either: a
 * key's part is an IP or a session variable, and a client that could choose its session
 * variables could already choose a fresh one per request.
 */
import type { KeyPart } from './counter-key.js';

/** Int32s per slot: fingerprint low, fingerprint high, row offset + 1 (0: the slot is empty), padding. */
const SLOT = 4;
const FP_LO = 0;
const FP_HI = 1;
const ROW = 2;
const INITIAL_SLOTS = 64;

// Fresh per process, so that which keys share a fingerprint differs between processes and runs.
const SEED_LO = (Math.random() * 0x1_0000_0000) | 0;
const SEED_HI = (Math.random() * 0x1_0000_0000) | 0;

/** The last fingerprint computed, as two int32s (module state: a lookup allocates nothing). */
let fpLo = 0;
let fpHi = 0;

function fmix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * Two 32-bit hashes of the key's UTF-16 code units, two units per step: a murmur3 round in one
 * lane and an xxhash32 round in the other, each finished with murmur3's avalanche and the length
 * (-1 for null, which no string has).
 */
function fingerprint(part: KeyPart): void {
  let a = SEED_LO;
  let b = SEED_HI;
  let length = -1;
  if (part !== null) {
    length = part.length;
    let i = 0;
    for (; i + 1 < length; i += 2) {
      const k = part.charCodeAt(i) | (part.charCodeAt(i + 1) << 16);
      let m = Math.imul(k, 0xcc9e2d51);
      m = Math.imul((m << 15) | (m >>> 17), 0x1b873593);
      a ^= m;
      a = (Math.imul((a << 13) | (a >>> 19), 5) + 0xe6546b64) | 0;
      b = (b + Math.imul(k, 0x85ebca77)) | 0;
      b = Math.imul((b << 13) | (b >>> 19), 0x9e3779b1);
    }
    if (i < length) {
      const k = part.charCodeAt(i);
      let m = Math.imul(k, 0xcc9e2d51);
      m = Math.imul((m << 15) | (m >>> 17), 0x1b873593);
      a ^= m;
      b = (b + Math.imul(k, 0x165667b1)) | 0;
      b = Math.imul((b << 17) | (b >>> 15), 0x27d4eb2f);
    }
  }
  fpLo = fmix(a ^ length);
  fpHi = fmix(b ^ Math.imul(length, 0x9e3779b1));
}

export class PartIndex {
  private slots = new Int32Array(INITIAL_SLOTS * SLOT);
  private mask = INITIAL_SLOTS - 1;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The row offset of `part`, if it has one. */
  get(part: KeyPart): number | undefined {
    fingerprint(part);
    const s = this.slots;
    for (let i = fpLo & this.mask; ; i = (i + 1) & this.mask) {
      const at = i * SLOT;
      const row = s[at + ROW]!;
      if (row === 0) return undefined;
      if (s[at + FP_LO] === fpLo && s[at + FP_HI] === fpHi) return row - 1;
    }
  }

  /** Gives `part`, which has no row yet (`get` answered undefined), the row at offset `row`. */
  set(part: KeyPart, row: number): void {
    if ((this.count + 1) * 2 > this.mask + 1) this.rebuild(this.slots, (this.mask + 1) * 2);
    fingerprint(part);
    this.put(fpLo, fpHi, row + 1);
    this.count++;
  }

  /** Keeps the keys whose row `keep` approves, forgets the others (the table is rebuilt: sweeps are rare). */
  retain(keep: (row: number) => boolean): void {
    const old = this.slots;
    let kept = 0;
    for (let at = 0; at < old.length; at += SLOT) {
      const row = old[at + ROW]!;
      if (row === 0) continue;
      if (keep(row - 1)) kept++;
      else old[at + ROW] = -1;
    }
    if (kept === this.count) return;
    let size = INITIAL_SLOTS;
    while (kept * 2 > size) size *= 2;
    this.rebuild(old, size);
    this.count = kept;
  }

  /** Puts every slot of `old` with a row (> 0) into a new table of `size` slots. */
  private rebuild(old: Int32Array, size: number): void {
    this.slots = new Int32Array(size * SLOT);
    this.mask = size - 1;
    for (let at = 0; at < old.length; at += SLOT) {
      const row = old[at + ROW]!;
      if (row > 0) this.put(old[at + FP_LO]!, old[at + FP_HI]!, row);
    }
  }

  private put(lo: number, hi: number, row: number): void {
    const s = this.slots;
    let i = lo & this.mask;
    while (s[i * SLOT + ROW] !== 0) i = (i + 1) & this.mask;
    const at = i * SLOT;
    s[at + FP_LO] = lo;
    s[at + FP_HI] = hi;
    s[at + ROW] = row;
  }
}
