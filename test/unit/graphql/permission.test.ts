import { expect } from 'chai';
import { buildPermissionFilter } from '../../../core/graphql/plan/index.js';
import { blogSource } from './fixtures.js';

const source = blogSource();
const article = source.tables.get('public.article')!;
const filter = (json: unknown) => buildPermissionFilter(article, json, source.tables);
const col = (name: string, type: string) => ({ kind: 'column', name, type }) as const;

describe('graphql plan: permission filters', () => {
  it('turns session-variable strings (any case) into session values', () => {
    expect(filter({ author_id: { _eq: 'X-SVC-User-Id' } })).to.deep.equal({
      kind: 'compare',
      lhs: col('author_id', 'int4'),
      op: '_eq',
      rhs: { value: { kind: 'session', name: 'x-svc-user-id' }, dbType: 'int4' },
    });
    expect(filter({ id: { _in: 'x-svc-allowed-ids' } })).to.deep.equal({
      kind: 'compare',
      lhs: col('id', 'int4'),
      op: '_in',
      rhs: { value: { kind: 'session', name: 'x-svc-allowed-ids' }, dbType: 'int4', array: true },
    });
    expect(filter({ body: { _eq: 'not-a-session-var' } })).to.deep.equal({
      kind: 'compare',
      lhs: col('body', 'text'),
      op: '_eq',
      rhs: { value: { kind: 'const', value: 'not-a-session-var' }, dbType: 'text' },
    });
  });

  it('accepts the legacy $-prefixed operators and the column: value shorthand', () => {
    expect(filter({ $or: [{ author_id: 'X-Svc-User-Id' }, { published: { $eq: true } }] })).to.deep.equal({
      kind: 'or',
      items: [
        { kind: 'compare', lhs: col('author_id', 'int4'), op: '_eq', rhs: { value: { kind: 'session', name: 'x-svc-user-id' }, dbType: 'int4' } },
        { kind: 'compare', lhs: col('published', 'bool'), op: '_eq', rhs: { value: { kind: 'const', value: true }, dbType: 'bool' } },
      ],
    });
  });

  it('follows relationships (by name, without re-applying permissions), _exists and column comparisons', () => {
    expect(
      filter({
        author: { name: { _ceq: ['$', 'body'] } },
        _exists: { _table: { schema: 'public', name: 'comment' }, _where: { text: { _ilike: '%spam%' } } },
        title: { _cneq: 'body' },
      }),
    ).to.deep.equal({
      kind: 'and',
      items: [
        {
          kind: 'relationship',
          target: { schema: 'public', name: 'author' },
          mapping: [['author_id', 'id']],
          where: { kind: 'compareColumn', lhs: col('name', 'text'), op: '_ceq', rhs: { column: 'body', root: true } },
        },
        {
          kind: 'exists',
          target: { schema: 'public', name: 'comment' },
          where: { kind: 'compare', lhs: col('text', 'text'), op: '_ilike', rhs: { value: { kind: 'const', value: '%spam%' }, dbType: 'text' } },
        },
        { kind: 'compareColumn', lhs: col('title', 'text'), op: '_cneq', rhs: { column: 'body', root: false } },
      ],
    });
  });

  it('treats an empty filter as true', () => {
    expect(filter({})).to.deep.equal({ kind: 'true' });
  });
});
