/**
 * A scope's keys (counter-key.ts: the user id, the IP), found by a 64-bit fingerprint of the key
 * in an open-addressed table whose slots also hold a light key's whole state: its periods and free
 * operations (key-rows.ts, the period block). A key gets a row in the key table (key-rows.ts) only
 * when it is leased, and its slot then points at that row.
 *
 * With a limit per user, nearly every request looks up a key no recent request touched, and most
 * such keys are light (seen a few times a minute, never leased). What such a request costs is
 * memory traffic: a `Map` of strings was three cache misses before the row's own (its bucket, the
 * entry, the stored key string it compares against), and a slot of fingerprint and row offset
 * that led on to the row was still two places on two pages, each a TLB miss at a server's pace on
 * a virtual machine, where a page walk is itself a walk of two page tables. Here a light key's
 * request reads and writes one 64-byte slot (docs/performance.md, "A light key in its slot").
 *
 * The price is that two keys of one scope with the same fingerprint share a slot, and so their
 * free operations and lease. The fingerprint is two independent 32-bit hashes seeded per
 * process: over a million distinct keys in a scope, a shared slot happens with a chance of about
 * 3 in 100 million (the birthday bound, n² / 2⁶⁵), and then costs two users part of one limit,
 * within the tolerance rate limits already have across instances. Nobody can aim for it either: a
 * key's part is an IP or a session variable, and a client that could choose its session
 * variables could already choose a fresh one per request.
 */
import type { KeyPart } from './counter-key.js';
import { PERIOD_BLOCK, PERIOD_START } from './key-rows.js';

/**
 * Float64s per slot, 64 bytes (one cache line, or two when the buffer's start is not 64-byte
 * aligned, which nothing promises; on one page but for one slot in 64): the period block
 * (key-rows.ts, at the same offsets as in a row, so that the same code keeps both), then the
 * fingerprint as two int32s, then ROW.
 */
const SLOT = 8;
const FP_LO = PERIOD_BLOCK;
const FP_HI = PERIOD_BLOCK + 1;
/** The key's row offset + 1 when it is leased; LIGHT when the slot is all it has; 0 when the slot is empty. */
const ROW = PERIOD_BLOCK + 2;
const LIGHT = -1;
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
  /** The slots, SLOT float64s each; replaced when the table grows or is swept (read it after `slotOf`). */
  slots = new Float64Array(INITIAL_SLOTS * SLOT);
  private mask = INITIAL_SLOTS - 1;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The offset in `slots` of `part`'s slot; a key never seen gets one, light, with no period yet. */
  slotOf(part: KeyPart): number {
    fingerprint(part);
    let s = this.slots;
    for (let i = fpLo & this.mask; ; i = (i + 1) & this.mask) {
      const at = i * SLOT;
      const row = s[at + ROW]!;
      if (row === 0) break;
      if (s[at + FP_LO] === fpLo && s[at + FP_HI] === fpHi) return at;
    }
    if ((this.count + 1) * 2 > this.mask + 1) {
      this.rebuild(s, (this.mask + 1) * 2);
      s = this.slots;
    }
    const at = this.free(fpLo);
    s[at + PERIOD_START] = Number.NEGATIVE_INFINITY;
    s[at + FP_LO] = fpLo;
    s[at + FP_HI] = fpHi;
    s[at + ROW] = LIGHT;
    this.count++;
    return at;
  }

  /** The offset of `part`'s slot, or -1 when it has none (nothing is added). */
  find(part: KeyPart): number {
    fingerprint(part);
    const s = this.slots;
    for (let i = fpLo & this.mask; ; i = (i + 1) & this.mask) {
      const at = i * SLOT;
      if (s[at + ROW] === 0) return -1;
      if (s[at + FP_LO] === fpLo && s[at + FP_HI] === fpHi) return at;
    }
  }

  /**
   * Keeps the keys whose slot `keep` approves (given the slots and the slot's offset), forgets the
   * others; the table is rebuilt, so slot offsets change (sweeps are rare).
   */
  retain(keep: (slots: Float64Array, at: number) => boolean): void {
    const old = this.slots;
    let kept = 0;
    for (let at = 0; at < old.length; at += SLOT) {
      if (old[at + ROW] === 0) continue;
      if (keep(old, at)) kept++;
      else old[at + ROW] = 0;
    }
    if (kept === this.count) return;
    let size = INITIAL_SLOTS;
    while (kept * 2 > size) size *= 2;
    this.rebuild(old, size);
    this.count = kept;
  }

  /** Moves every slot of `old` in use into a new table of `size` slots. */
  private rebuild(old: Float64Array, size: number): void {
    this.slots = new Float64Array(size * SLOT);
    this.mask = size - 1;
    for (let at = 0; at < old.length; at += SLOT) {
      if (old[at + ROW] === 0) continue;
      const to = this.free(old[at + FP_LO]!);
      this.slots.set(old.subarray(at, at + SLOT), to);
    }
  }

  /** The first empty slot on the probe path of a fingerprint whose low half is `lo`. */
  private free(lo: number): number {
    const s = this.slots;
    let i = lo & this.mask;
    while (s[i * SLOT + ROW] !== 0) i = (i + 1) & this.mask;
    return i * SLOT;
  }
}

/** The lease row of the key in slot `at` (offset in the key table), or -1 when the key is light. */
export function rowOf(slots: Float64Array, at: number): number {
  const row = slots[at + ROW]!;
  return row > 0 ? row - 1 : -1;
}

/** The key in slot `at` is now leased, with its row at offset `row` of the key table. */
export function setRow(slots: Float64Array, at: number, row: number): void {
  slots[at + ROW] = row + 1;
}
