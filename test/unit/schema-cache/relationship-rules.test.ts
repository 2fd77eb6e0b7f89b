/**
 * A kind's join rules (`DatabaseKind.checkRelationship`, handed to the resolver as
 * `checkRelationship`): the resolver asks them about every relationship that resolved, with the
 * form it was defined in and the column pairs, and turns a refusal into an inconsistent object
 * in the reference's relationship context; `relationshipRefusal` gives creating operations the
 * bare reason, and nothing for a relationship that does not resolve.
 */
import { expect } from 'chai';
import type { RelationshipCheck } from '../../../core/db/contract.js';
import { ScalarTypes } from '../../../core/db/scalar-types.js';
import type { SourceMetadata, TableMetadata } from '../../../core/metadata/types.js';
import { relationshipRefusal, resolveSource } from '../../../core/schema-cache/resolve/index.js';
import { POSTGRES_SCALAR_TYPES } from '../../../plugins/db/postgres/scalar-types.js';
import { authorArticleCatalog } from '../../helpers/catalog.js';
import { FakeConnection } from '../../helpers/fake-connection.js';

const article: TableMetadata = {
  table: { schema: 'public', name: 'article' },
  object_relationships: [
    { name: 'author', using: { foreign_key_constraint_on: 'author_id' } },
    { name: 'writer', using: { manual_configuration: { remote_table: { schema: 'public', name: 'author' }, column_mapping: { author_id: 'id' } } } },
    { name: 'broken', using: { foreign_key_constraint_on: 'title' } },
  ],
};
const author: TableMetadata = {
  table: { schema: 'public', name: 'author' },
  array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'article' }, column: 'author_id' } } }],
};
const meta: SourceMetadata = { name: 'default', kind: 'test', tables: [article, author], configuration: {} };

describe('schema-cache resolver: a kind\'s join rules', () => {
  it('asks about every relationship that resolved, and reports the refused ones as inconsistent', async () => {
    const asked: RelationshipCheck[] = [];
    const rule = (check: RelationshipCheck): string | null => {
      asked.push(check);
      return check.using === 'manual' ? `no manual joins from ${check.table.name} to ${check.target.name}` : null;
    };
    const { source, inconsistencies } = await resolveSource(meta, authorArticleCatalog(), new FakeConnection(), {
      scalarTypes: new ScalarTypes(POSTGRES_SCALAR_TYPES),
      checkRelationship: rule,
    });
    expect(asked.map((c) => [c.kind, c.using, c.table.name, c.target.name, c.mapping])).to.deep.equal([
      ['object', 'foreign_key', 'article', 'author', [['author_id', 'id']]],
      ['object', 'manual', 'article', 'author', [['author_id', 'id']]],
      ['array', 'foreign_key', 'author', 'article', [['id', 'author_id']]],
    ]);
    expect(inconsistencies.map((o) => [o.name, o.reason])).to.deep.equal([
      ['object_relation writer in table article in source default', 'Inconsistent object: in table "article": in relationship "writer": no manual joins from article to author'],
      ['object_relation broken in table article in source default', 'Inconsistent object: in table "article": in relationship "broken": no foreign constraint exists on the given column(s)'],
    ]);
    expect([...source.tables.get('public.article')!.relationships.keys()]).to.deep.equal(['author']);
    expect([...source.tables.get('public.author')!.relationships.keys()]).to.deep.equal(['articles']);
  });

  it('gives a creating operation the bare reason, and nothing for what does not resolve', () => {
    const cat = authorArticleCatalog();
    const tables = new Map(cat.tables.map((t) => [`${t.schema}.${t.name}`, t] as const));
    const env = { source: 'default', table: article.table, catalog: tables.get('public.article')!, tracked: tables };
    const refuseAll = (c: RelationshipCheck) => `refused ${c.kind} ${c.using}`;
    expect(relationshipRefusal(env, 'object', article.object_relationships![0]!, refuseAll)).to.equal('refused object foreign_key');
    expect(relationshipRefusal(env, 'object', article.object_relationships![1]!, refuseAll)).to.equal('refused object manual');
    expect(relationshipRefusal(env, 'object', article.object_relationships![2]!, refuseAll)).to.equal(null);
    expect(relationshipRefusal(env, 'object', article.object_relationships![0]!, () => null)).to.equal(null);
  });
});
