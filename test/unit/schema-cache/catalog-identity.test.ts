/**
 * A catalog read again keeps the previous catalog's entry objects where they are equal: the
 * resolver's memos and its taking over of unchanged tables (resolve/reuse.ts) compare catalog
 * entries by identity, so an equal entry read afresh (a view, re-read on every refresh) must not
 * look changed.
 */
import { expect } from 'chai';
import type { CatalogFunction } from '../../../core/db/catalog.js';
import { withUnchangedEntriesOf } from '../../../core/schema-cache/connections.js';
import { catalog, table } from '../../helpers/catalog.js';

const fn = (name: string, argType: string, oid: number): CatalogFunction => ({
  schema: 'public',
  name,
  oid,
  volatility: 'stable',
  returnType: 'int4',
  returnTypeSchema: 'pg_catalog',
  returnsSet: false,
  returnsTable: null,
  args: [{ name: 'x', type: argType, hasDefault: false }],
  description: null,
  language: 'sql',
});

describe('schema cache: a catalog read again keeps the entries that did not change', () => {
  it('keeps equal tables and functions as the previous objects, and takes changed and new ones as read', () => {
    const author = table('author', { columns: ['id:int4', 'name'], pk: ['id'] });
    const article = table('article', { columns: ['id:int4'], pk: ['id'] });
    const view = table('recent', { columns: ['id:int4'], kind: 'view' });
    const previous = { ...catalog(article, author, view), functions: [fn('f', 'int4', 1), fn('f', 'text', 2)] };

    const viewAgain = table('recent', { columns: ['id:int4'], kind: 'view' });
    const authorChanged = table('author', { columns: ['id:int4', 'name', 'bio'], pk: ['id'] });
    const added = table('tag', { columns: ['id:int4'], pk: ['id'] });
    const overloadAgain = fn('f', 'text', 2);
    const next = { ...catalog(article, authorChanged, viewAgain, added), functions: [fn('f', 'int4', 1), overloadAgain, fn('g', 'int4', 3)] };

    const kept = withUnchangedEntriesOf(previous, next);
    expect(kept.tables[0]).to.equal(article);
    expect(kept.tables[1]).to.equal(authorChanged);
    expect(kept.tables[2]).to.equal(view);
    expect(kept.tables[3]).to.equal(added);
    expect(kept.functions[0]).to.equal(previous.functions[0]);
    expect(kept.functions[1]).to.equal(previous.functions[1]);
    expect(kept.functions[2]).to.equal(next.functions[2]);
  });

  it('answers the read entries as they are when every one is a previous object', () => {
    const author = table('author', { columns: ['id:int4'], pk: ['id'] });
    const previous = catalog(author);
    const next = catalog(author);
    expect(withUnchangedEntriesOf(previous, next).tables).to.equal(next.tables);
  });
});
