/**
 * The rate limit's key index (plugins/limits/rate/part-index.ts): a scope's keys to their rows by
 * fingerprint. Checked against a Map over random operations (lookups of present and absent keys,
 * growth, sweeps that forget some keys), and on the keys a fingerprint could confuse most easily:
 * null against "null" and "", odd and even lengths, keys one code unit apart, non-ASCII text.
 */
import { expect } from 'chai';
import type { KeyPart } from '../../../plugins/limits/rate/counter-key.js';
import { PartIndex } from '../../../plugins/limits/rate/part-index.js';

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

describe('rate-limit key index', () => {
  it('tells apart keys that differ only slightly, and null from any text', () => {
    const parts: KeyPart[] = [null, '', 'null', 'a', 'b', 'ab', 'ba', 'abc', 'abd', 'bbc', '\u0000', '\u0000\u0000', 'é', 'e\u0301', '用户-1', '用户-2', '🙂', '10.0.0.1', '10.0.0.10', '10.0.0.100'];
    for (let i = 0; i < 200; i++) parts.push(`user-${i}`, `${i}`);
    const index = new PartIndex();
    parts.forEach((p, i) => {
      expect(index.get(p), JSON.stringify(p)).to.equal(undefined);
      index.set(p, i * 8);
    });
    parts.forEach((p, i) => expect(index.get(p), JSON.stringify(p)).to.equal(i * 8));
    expect(index.size).to.equal(parts.length);
    expect(index.get('user-200')).to.equal(undefined);
    expect(index.get('nul')).to.equal(undefined);
  });

  it('answers as a Map does over random lookups, additions and sweeps', () => {
    for (const seed of [1, 2, 3]) {
      const rand = random(seed);
      const index = new PartIndex();
      const expected = new Map<KeyPart, number>();
      let next = 0;
      for (let op = 0; op < 20_000; op++) {
        const r = rand();
        const part: KeyPart = r < 0.01 ? null : `u${Math.floor(rand() * 5_000)}`;
        if (r > 0.999) {
          // A sweep: forget about a third of the keys, chosen by their row.
          const drop = (row: number) => row % 3 === 0;
          index.retain((row) => !drop(row));
          for (const [k, row] of [...expected]) if (drop(row)) expected.delete(k);
          expect(index.size, `seed ${seed} op ${op}`).to.equal(expected.size);
          continue;
        }
        const want = expected.get(part);
        expect(index.get(part), `seed ${seed} op ${op} ${part}`).to.equal(want);
        if (want === undefined) {
          index.set(part, next);
          expected.set(part, next);
          next += 8;
        }
      }
      for (const [k, row] of expected) expect(index.get(k)).to.equal(row);
      expect(index.size).to.equal(expected.size);
    }
  });

  it('keeps every key through growth and a sweep that keeps all or none', () => {
    const index = new PartIndex();
    const n = 50_000;
    for (let i = 0; i < n; i++) index.set(`key-${i}`, i * 8);
    for (let i = 0; i < n; i++) expect(index.get(`key-${i}`)).to.equal(i * 8);
    let seen = 0;
    index.retain(() => {
      seen++;
      return true;
    });
    expect(seen).to.equal(n);
    expect(index.get('key-49999')).to.equal(49_999 * 8);
    index.retain(() => false);
    expect(index.size).to.equal(0);
    expect(index.get('key-0')).to.equal(undefined);
    index.set('key-0', 16);
    expect(index.get('key-0')).to.equal(16);
  });
});
