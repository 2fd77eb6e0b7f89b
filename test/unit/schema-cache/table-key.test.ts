import { expect } from 'chai';
import { tableKey, tableOfKey } from '../../../core/db/catalog.js';

describe('table keys (core/db/catalog.ts)', () => {
  it('reads as schema.name for ordinary names', () => {
    expect(tableKey({ schema: 'public', name: 'author' })).to.equal('public.author');
  });

  it('gives two keys to names that a plain dot would join into one', () => {
    const pairs = [
      [{ schema: 'a.b', name: 'c' }, { schema: 'a', name: 'b.c' }],
      [{ schema: 'a\\', name: 'b' }, { schema: 'a', name: '\\b' }],
      [{ schema: 'a\\.b', name: 'c' }, { schema: 'a\\', name: 'b.c' }],
    ];
    for (const [x, y] of pairs) expect(tableKey(x!), JSON.stringify([x, y])).to.not.equal(tableKey(y!));
  });

  it('gives back the schema and name it was made of', () => {
    for (const t of [
      { schema: 'public', name: 'author' },
      { schema: 'a.b', name: 'c' },
      { schema: 'a', name: 'b.c' },
      { schema: 'x\\y', name: 'z.\\.w' },
      { schema: '', name: '.' },
    ]) {
      expect(tableOfKey(tableKey(t))).to.deep.equal(t);
    }
  });
});
