import { expect } from 'chai';
import type { SourceConnection } from '../../../core/db/contract.js';
import { ScalarTypes } from '../../../core/db/scalar-types.js';
import type { TableMetadata } from '../../../core/metadata/types.js';
import type { ResolvedRelationship, ResolvedTable } from '../../../core/schema-cache/model.js';
import { PermissionMemoPass, type PermissionOutcome } from '../../../core/schema-cache/resolve/permission-memo.js';

/**
 * The permission memo reuses a table's permission outcomes while every table its validation read
 * looks the same, including the relationships it resolved; the text of a table's relationships is
 * kept between passes while they are the same objects, and must be built again when one is not.
 */
describe('schema cache: the permission memo sees a changed relationship of an unchanged table entry', () => {
  const metadata = Object.freeze({ table: { schema: 'public', name: 'article' } }) as TableMetadata;
  const catalog = Object.freeze({ schema: 'public', name: 'article' }) as unknown as ResolvedTable['catalog'];
  const entries = Object.freeze([Object.freeze({ role: 'user', permission: {} })]);
  const context = { scalars: new ScalarTypes(), connection: {} as SourceConnection, writable: true };

  const relationship = (target: string): ResolvedRelationship =>
    Object.freeze({ name: 'author', kind: 'object', target, mapping: [['author_id', 'id']], comment: null, insertionOrder: 'before_parent', required: true }) as ResolvedRelationship;
  const tableWith = (relationships: Map<string, ResolvedRelationship>): ResolvedTable =>
    ({ key: 'public.article', metadata, catalog, relationships, columns: [] }) as unknown as ResolvedTable;

  function pass(t: ResolvedTable): number {
    let validations = 0;
    const validate = (): PermissionOutcome[] => {
      validations++;
      return [{ ok: false, message: 'checked' }];
    };
    new PermissionMemoPass(context, new Map([[t.key, t]])).outcomes(entries, 'select', t, validate);
    return validations;
  }

  it('reuses the outcomes while the relationships are the same objects, and validates again when one changed', () => {
    const toAuthor = relationship('public.author');
    expect(pass(tableWith(new Map([['author', toAuthor]])))).to.equal(1);
    expect(pass(tableWith(new Map([['author', toAuthor]])))).to.equal(0);
    expect(pass(tableWith(new Map([['author', relationship('public.writer')]])))).to.equal(1);
    expect(pass(tableWith(new Map()))).to.equal(1);
    expect(pass(tableWith(new Map()))).to.equal(0);
  });
});
