/**
 * The rate limit's key index (plugins/limits/rate/part-index.ts): a scope's keys to their slots by
 * fingerprint, each slot holding the key's state. Checked against a Map over random operations
 * (lookups of present and absent keys, growth, sweeps that forget some keys), with a value written
 * into each key's slot that must follow the key wherever the table moves it, and on the keys a
 * fingerprint could confuse most easily: null against "null" and "", odd and even lengths, keys one
 * code unit apart, non-ASCII text.
 */
import { expect } from 'chai';
import type { KeyPart } from '../../../plugins/limits/rate/counter-key.js';
import { LAST_USED, PERIOD_START } from '../../../plugins/limits/rate/key-rows.js';
import { PartIndex, rowOf, setRow } from '../../../plugins/limits/rate/part-index.js';

/** A small seeded generator (mulberry32), so that a failure can be replayed. */
function random(seed: number): () => number {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) | 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

/** What the test keeps in a key's slot: a light key's LAST_USED field. */
const MARK = LAST_USED;

/** The mark in `part`'s slot; undefined when the index has no slot for it. */
function markOf(index: PartIndex, part: KeyPart): number | undefined {
  const at = index.find(part);
  return at < 0 ? undefined : index.slots[at + MARK];
}

/** Gives `part` a slot (it must have none) and marks it with `mark`. */
function add(index: PartIndex, part: KeyPart, mark: number): void {
  const before = index.size;
  const at = index.slotOf(part);
  expect(index.size).to.equal(before + 1);
  // A new key is light, with no period yet.
  expect(rowOf(index.slots, at)).to.equal(-1);
  expect(index.slots[at + PERIOD_START]).to.equal(Number.NEGATIVE_INFINITY);
  index.slots[at + MARK] = mark;
}

describe('rate-limit key index', () => {
  it('tells apart keys that differ only slightly, and null from any text', () => {
    const parts: KeyPart[] = [null, '', 'null', 'a', 'b', 'ab', 'ba', 'abc', 'abd', 'bbc', '\u0000', '\u0000\u0000', 'é', 'e\u0301', '用户-1', '用户-2', '🙂', '10.0.0.1', '10.0.0.10', '10.0.0.100'];
    for (let i = 0; i < 200; i++) parts.push(`user-${i}`, `${i}`);
    const index = new PartIndex();
    parts.forEach((p, i) => {
      expect(markOf(index, p), JSON.stringify(p)).to.equal(undefined);
      add(index, p, i + 1);
    });
    parts.forEach((p, i) => expect(markOf(index, p), JSON.stringify(p)).to.equal(i + 1));
    // slotOf finds a key it has rather than adding it again.
    parts.forEach((p, i) => expect(index.slots[index.slotOf(p) + MARK], JSON.stringify(p)).to.equal(i + 1));
    expect(index.size).to.equal(parts.length);
    expect(markOf(index, 'user-200')).to.equal(undefined);
    expect(markOf(index, 'nul')).to.equal(undefined);
  });

  it('answers as a Map does over random lookups, additions and sweeps, state moving with its key', () => {
    for (const seed of [1, 2, 3]) {
      const rand = random(seed);
      const index = new PartIndex();
      const expected = new Map<KeyPart, number>();
      let next = 1;
      for (let op = 0; op < 20_000; op++) {
        const r = rand();
        const part: KeyPart = r < 0.01 ? null : `u${Math.floor(rand() * 5_000)}`;
        if (r > 0.999) {
          // A sweep: forget about a third of the keys, chosen by their mark.
          const drop = (mark: number) => mark % 3 === 0;
          index.retain((slots, at) => !drop(slots[at + MARK]!));
          for (const [k, mark] of [...expected]) if (drop(mark)) expected.delete(k);
          expect(index.size, `seed ${seed} op ${op}`).to.equal(expected.size);
          continue;
        }
        const want = expected.get(part);
        expect(markOf(index, part), `seed ${seed} op ${op} ${part}`).to.equal(want);
        if (want === undefined) {
          add(index, part, next);
          expected.set(part, next);
          next++;
        }
      }
      for (const [k, mark] of expected) expect(markOf(index, k)).to.equal(mark);
      expect(index.size).to.equal(expected.size);
    }
  });

  it('keeps every key and its row through growth and a sweep that keeps all or none', () => {
    const index = new PartIndex();
    const n = 50_000;
    for (let i = 0; i < n; i++) {
      add(index, `key-${i}`, i + 1);
      if (i % 2 === 0) setRow(index.slots, index.find(`key-${i}`), i * 16);
    }
    for (let i = 0; i < n; i++) {
      const at = index.find(`key-${i}`);
      expect(index.slots[at + MARK]).to.equal(i + 1);
      expect(rowOf(index.slots, at)).to.equal(i % 2 === 0 ? i * 16 : -1);
    }
    let seen = 0;
    index.retain(() => {
      seen++;
      return true;
    });
    expect(seen).to.equal(n);
    expect(markOf(index, 'key-49999')).to.equal(50_000);
    expect(rowOf(index.slots, index.find('key-49998'))).to.equal(49_998 * 16);
    index.retain(() => false);
    expect(index.size).to.equal(0);
    expect(markOf(index, 'key-0')).to.equal(undefined);
    add(index, 'key-0', 7);
    expect(markOf(index, 'key-0')).to.equal(7);
  });
});
