import { expect } from 'chai';
import { resolveSource, isGraphQLName } from '../../../core/schema-cache/resolve/index.js';
import type { SourceMetadata, TableMetadata } from '../../../core/metadata/types.js';
import type { DatabaseCatalog } from '../../../core/db/catalog.js';
import { authorArticleCatalog, catalog, table } from '../../helpers/catalog.js';
import { FakeConnection, type EnumRows } from '../../helpers/fake-connection.js';
import { POSTGRES_SCALAR_TYPES } from '../../../plugins/db/postgres/scalar-types.js';
import { ScalarTypes } from '../../../core/db/scalar-types.js';

/** The resolver as the builder calls it for a postgres source. */
const PG = { scalarTypes: new ScalarTypes(POSTGRES_SCALAR_TYPES) };

function sourceMeta(tables: TableMetadata[], extra: Partial<SourceMetadata> = {}): SourceMetadata {
  return { name: 'default', kind: 'postgres', tables, configuration: {}, ...extra };
}

const t = (name: string, extra: Partial<TableMetadata> = {}): TableMetadata => ({ table: { schema: 'public', name }, ...extra });

async function resolve(meta: SourceMetadata, cat: DatabaseCatalog, rows: EnumRows = {}) {
  return resolveSource(meta, cat, new FakeConnection(rows), PG);
}

describe('schema-cache resolver', () => {
  describe('tables', () => {
    it('derives identifier, type name, root fields, columns, key and description', async () => {
      const cat = catalog(table('author', { columns: ['id:int4', { name: 'name', description: 'full name' }], pk: ['id'], description: 'writers' }));
      const { source, inconsistencies } = await resolve(sourceMeta([t('author')]), cat);
      expect(inconsistencies).to.deep.equal([]);
      const author = source.tables.get('public.author')!;
      expect(author.identifier).to.equal('author');
      expect(author.typeName).to.equal('author');
      expect(author.rootFields).to.deep.equal({
        select: 'author',
        select_by_pk: 'author_by_pk',
        select_aggregate: 'author_aggregate',
        select_stream: 'author_stream',
        insert: 'insert_author',
        insert_one: 'insert_author_one',
        update: 'update_author',
        update_by_pk: 'update_author_by_pk',
        update_many: 'update_author_many',
        delete: 'delete_author',
        delete_by_pk: 'delete_author_by_pk',
      });
      expect(author.columns.map((c) => [c.name, c.graphqlName, c.type, c.nullable, c.description])).to.deep.equal([
        ['id', 'id', 'int4', false, null],
        ['name', 'name', 'text', true, 'full name'],
      ]);
      expect(author.primaryKey).to.deep.equal(['id']);
      expect(author.description).to.equal('writers');
      expect(author.isEnum).to.equal(false);
    });

    it('prefixes the identifier of tables outside public with their schema', async () => {
      const cat = catalog(table('t4', { schema: 'pub', columns: ['id:int4'], pk: ['id'] }));
      const { source } = await resolve(sourceMeta([{ table: { schema: 'pub', name: 't4' } }]), cat);
      const t4 = source.tables.get('pub.t4')!;
      expect(t4.identifier).to.equal('pub_t4');
      expect(t4.rootFields.select_by_pk).to.equal('pub_t4_by_pk');
    });

    it('reports a table missing from the database in the reference format', async () => {
      const { source, inconsistencies } = await resolve(
        sourceMeta([t('author'), t('t1'), { table: { schema: 'pub', name: 't4' } }]),
        authorArticleCatalog(),
      );
      expect([...source.tables.keys()]).to.deep.equal(['public.author']);
      expect(inconsistencies).to.deep.equal([
        {
          type: 'table',
          name: 'table t1 in source default',
          definition: { schema: 'public', name: 't1' },
          reason: 'Inconsistent object: no such table/view exists in source: "t1"',
        },
        {
          type: 'table',
          name: 'table pub.t4 in source default',
          definition: { schema: 'pub', name: 't4' },
          reason: 'Inconsistent object: no such table/view exists in source: "pub.t4"',
        },
      ]);
    });

    it('applies custom_name, custom_root_fields, column_config and the table comment', async () => {
      const meta = t('author', {
        configuration: {
          custom_name: 'writer',
          custom_root_fields: { select: 'all_writers', insert_one: null },
          column_config: { name: { custom_name: 'full_name', comment: 'given + family' } },
          comment: 'configured',
        },
      });
      const { source, inconsistencies } = await resolve(sourceMeta([meta]), authorArticleCatalog());
      expect(inconsistencies).to.deep.equal([]);
      const author = source.tables.get('public.author')!;
      expect(author.identifier).to.equal('writer');
      expect(author.typeName).to.equal('writer');
      expect(author.rootFields.select).to.equal('all_writers');
      expect(author.rootFields.insert_one).to.equal('insert_writer_one');
      expect(author.columnsByName.get('name')!.graphqlName).to.equal('full_name');
      expect(author.columnsByGraphqlName.get('full_name')!.description).to.equal('given + family');
      expect(author.description).to.equal('configured');
    });

    it('accepts the legacy custom_column_names and the identifier key', async () => {
      const meta = t('author', { configuration: { identifier: 'authors', custom_column_names: { bio: 'biography' } } });
      const { source } = await resolve(sourceMeta([meta]), authorArticleCatalog());
      const author = source.tables.get('public.author')!;
      expect(author.identifier).to.equal('authors');
      expect(author.columnsByName.get('bio')!.graphqlName).to.equal('biography');
    });

    it('applies the source root-field and type-name prefixes and suffixes', async () => {
      const meta = sourceMeta([t('author', { configuration: { custom_root_fields: { select: 'writers' } } })], {
        customization: { root_fields: { prefix: 'my_', suffix: '_x' }, type_names: { prefix: 'T_', suffix: '_t' } },
      });
      const { source } = await resolve(meta, authorArticleCatalog());
      const author = source.tables.get('public.author')!;
      expect(author.rootFields.select).to.equal('my_writers_x');
      expect(author.rootFields.insert_one).to.equal('my_insert_author_one_x');
      expect(author.typeName).to.equal('T_author_t');
    });

    it('uses camelCase and PascalCase under the graphql-default naming convention', async () => {
      const cat = catalog(table('author_detail', { columns: ['id:int4', 'first_name', 'last_name'], pk: ['id'] }));
      const meta = sourceMeta([t('author_detail', { configuration: { column_config: { last_name: { custom_name: 'surname' } } } })], {
        customization: { naming_convention: 'graphql-default' },
      });
      const { source } = await resolve(meta, cat);
      const d = source.tables.get('public.author_detail')!;
      expect(d.typeName).to.equal('AuthorDetail');
      expect(d.rootFields.select).to.equal('authorDetail');
      expect(d.rootFields.select_by_pk).to.equal('authorDetailByPk');
      expect(d.rootFields.insert_one).to.equal('insertAuthorDetailOne');
      expect(d.columns.map((c) => c.graphqlName)).to.deep.equal(['id', 'firstName', 'surname']);
    });

    it('requires a GraphQL-compliant name, which custom_name can provide', async () => {
      const cat = catalog(table('users address', { columns: ['id:int4'], pk: ['id'], pkName: 'users_address_pkey' }));
      const bad = await resolve(sourceMeta([t('users address')]), cat);
      expect(bad.inconsistencies).to.deep.equal([
        {
          type: 'table',
          name: 'table users address in source default',
          definition: { schema: 'public', name: 'users address' },
          reason:
            'Inconsistent object: cannot include "users address" in the GraphQL schema because "users address" is not a valid GraphQL identifier',
        },
      ]);
      const good = await resolve(sourceMeta([t('users address', { configuration: { custom_name: 'users_address' } })]), cat);
      expect(good.inconsistencies).to.deep.equal([]);
      expect(good.source.tables.get('public.users address')!.rootFields.select).to.equal('users_address');
    });

    it('requires GraphQL-compliant constraint names', async () => {
      const cat = catalog(table('author', { columns: ['id:int4'], pk: ['id'], pkName: 'author-pkey' }));
      const { inconsistencies } = await resolve(sourceMeta([t('author')]), cat);
      expect(inconsistencies[0]!.reason).to.equal(
        'Inconsistent object: cannot include "author-pkey" in the GraphQL schema because it is not a valid GraphQL identifier',
      );
    });

    it('rejects configuration for a missing column and columns mapped to one field', async () => {
      const missing = await resolve(sourceMeta([t('author', { configuration: { column_config: { nope: { custom_name: 'x' } } } })]), authorArticleCatalog());
      expect(missing.inconsistencies[0]!.reason).to.equal(
        'Inconsistent object: configuration was given for the column "nope", but no such column exists',
      );
      const dup = await resolve(sourceMeta([t('author', { configuration: { column_config: { bio: { custom_name: 'name' } } } })]), authorArticleCatalog());
      expect(dup.inconsistencies[0]!.reason).to.equal(
        'Inconsistent object: the definitions of columns "name" and "bio" are in conflict: they are mapped to the same field name, "name"',
      );
    });

    it('reports a table tracked twice once', async () => {
      const { source, inconsistencies } = await resolve(sourceMeta([t('author'), t('author')]), authorArticleCatalog());
      expect(source.tables.size).to.equal(0);
      expect(inconsistencies.map((i) => i.reason)).to.deep.equal(['Inconsistent object: duplication definition for table']);
    });

    it('carries permissions into maps by role', async () => {
      const meta = t('author', {
        select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: { id: { _eq: 'X-Svc-User-Id' } } } }],
        insert_permissions: [{ role: 'user', permission: { check: {}, columns: '*' } }],
        delete_permissions: [{ role: 'editor', permission: { filter: {} } }],
      });
      const { source } = await resolve(sourceMeta([meta]), authorArticleCatalog());
      const p = source.tables.get('public.author')!.permissions;
      expect(p.select.get('user')).to.deep.equal({ columns: ['id'], filter: { id: { _eq: 'X-Svc-User-Id' } } });
      expect([...p.insert.keys()]).to.deep.equal(['user']);
      expect([...p.delete.keys()]).to.deep.equal(['editor']);
      expect(p.update.size).to.equal(0);
    });
  });

  describe('name clashes', () => {
    it('keeps the first table and reports a later one generating the same root field', async () => {
      const cat = catalog(table('author', { columns: ['id:int4'], pk: ['id'] }), table('writer', { columns: ['id:int4'], pk: ['id'] }));
      const meta = sourceMeta([t('author'), t('writer', { configuration: { custom_root_fields: { select: 'author' } } })]);
      const { source, inconsistencies } = await resolve(meta, cat);
      expect([...source.tables.keys()]).to.deep.equal(['public.author']);
      expect(inconsistencies).to.have.length(1);
      expect(inconsistencies[0]!.name).to.equal('table writer in source default');
      expect(inconsistencies[0]!.reason).to.equal(
        "Inconsistent object: Encountered conflicting definitions in the selection set for 'query_root' for field 'author' defined in [table author in source default, table writer in source default]. Fields must not be defined more than once across all sources.",
      );
    });

    it('reports two tables with the same type name', async () => {
      const cat = catalog(table('author', { columns: ['id:int4'] }), table('author', { schema: 'other', columns: ['id:int4'] }));
      const meta = sourceMeta([t('author'), { table: { schema: 'other', name: 'author' }, configuration: { custom_name: 'author', custom_root_fields: { select: 'a2', select_aggregate: 'a2_agg', select_stream: 'a2_s', insert: 'i2', insert_one: 'i2o', update: 'u2', update_many: 'u2m', delete: 'd2' } } }]);
      const { inconsistencies } = await resolve(meta, cat);
      expect(inconsistencies.map((i) => i.name)).to.deep.equal(['table other.author in source default']);
      expect(inconsistencies[0]!.reason).to.match(/conflicting definitions for GraphQL type 'author'/);
    });

    it('reports a mutation root field clash in mutation_root', async () => {
      const cat = catalog(table('a', { columns: ['id:int4'] }), table('b', { columns: ['id:int4'] }));
      const meta = sourceMeta([t('a'), t('b', { configuration: { custom_root_fields: { delete: 'delete_a' } } })]);
      const { inconsistencies } = await resolve(meta, cat);
      expect(inconsistencies[0]!.reason).to.contain("for 'mutation_root' for field 'delete_a'");
    });
  });

  describe('relationships', () => {
    const rels = (extra: Partial<TableMetadata>, articleExtra: Partial<TableMetadata> = {}) =>
      sourceMeta([t('author', extra), t('article', articleExtra)]);

    it('resolves every foreign_key_constraint_on form and manual_configuration', async () => {
      const meta = rels(
        {
          array_relationships: [
            { name: 'articles', using: { foreign_key_constraint_on: { table: 'article', columns: ['author_id'] } }, comment: 'all' },
            { name: 'articles_old', using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'article' }, column: 'author_id' } } },
            { name: 'articles_manual', using: { manual_configuration: { remote_table: 'article', column_mapping: { id: 'author_id' } } } },
          ],
        },
        {
          object_relationships: [
            { name: 'author', using: { foreign_key_constraint_on: 'author_id' } },
            { name: 'author_cols', using: { foreign_key_constraint_on: ['author_id'] } },
            { name: 'author_manual', using: { manual_configuration: { remote_table: { schema: 'public', name: 'author' }, column_mapping: { author_id: 'id' }, insertion_order: 'after_parent' } } },
          ],
        },
      );
      const { source, inconsistencies } = await resolve(meta, authorArticleCatalog());
      expect(inconsistencies).to.deep.equal([]);
      const author = source.tables.get('public.author')!;
      const article = source.tables.get('public.article')!;
      expect(author.relationships.get('articles')).to.deep.equal({
        name: 'articles',
        kind: 'array',
        target: 'public.article',
        mapping: [['id', 'author_id']],
        comment: 'all',
        insertionOrder: 'after_parent',
        required: false,
      });
      expect(author.relationships.get('articles_old')!.mapping).to.deep.equal([['id', 'author_id']]);
      expect(author.relationships.get('articles_manual')!.mapping).to.deep.equal([['id', 'author_id']]);
      expect(article.relationships.get('author')).to.deep.equal({
        name: 'author',
        kind: 'object',
        target: 'public.author',
        mapping: [['author_id', 'id']],
        comment: null,
        insertionOrder: 'before_parent',
        required: true,
      });
      expect(article.relationships.get('author_cols')!.mapping).to.deep.equal([['author_id', 'id']]);
      expect(article.relationships.get('author_manual')).to.include({ insertionOrder: 'after_parent', required: false });
    });

    it('resolves an object relationship through the remote table and composite keys', async () => {
      const cat = catalog(
        table('a', { columns: ['x:int4', 'y:int4'], pk: ['x', 'y'] }),
        table('b', { columns: ['ax:int4', 'ay:int4'], fks: [{ columns: ['ax', 'ay'], ref: 'a', refColumns: ['x', 'y'] }] }),
      );
      const meta = sourceMeta([
        t('a', { object_relationships: [{ name: 'b', using: { foreign_key_constraint_on: { table: 'b', columns: ['ay', 'ax'] } } }] }),
        t('b', { object_relationships: [{ name: 'a', using: { foreign_key_constraint_on: ['ay', 'ax'] } }] }),
      ]);
      const { source, inconsistencies } = await resolve(meta, cat);
      expect(inconsistencies).to.deep.equal([]);
      expect(source.tables.get('public.a')!.relationships.get('b')).to.include({ insertionOrder: 'after_parent', target: 'public.b' });
      expect(source.tables.get('public.a')!.relationships.get('b')!.mapping).to.deep.equal([['x', 'ax'], ['y', 'ay']]);
      expect(source.tables.get('public.b')!.relationships.get('a')!.mapping).to.deep.equal([['ax', 'x'], ['ay', 'y']]);
    });

    it('leaves out a broken relationship and keeps the rest serving', async () => {
      const meta = rels(
        {
          array_relationships: [
            { name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'published_on' } } },
            { name: 'good', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } },
          ],
        },
        { object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'published_on' } }] },
      );
      const { source, inconsistencies } = await resolve(meta, authorArticleCatalog());
      expect([...source.tables.get('public.author')!.relationships.keys()]).to.deep.equal(['good']);
      expect(source.tables.get('public.article')!.relationships.size).to.equal(0);
      expect(inconsistencies).to.deep.equal([
        {
          type: 'array_relation',
          name: 'array_relation articles in table author in source default',
          definition: {
            source: 'default',
            table: { schema: 'public', name: 'author' },
            name: 'articles',
            using: { foreign_key_constraint_on: { table: 'article', column: 'published_on' } },
            comment: null,
          },
          reason: 'Inconsistent object: in table "author": in relationship "articles": no foreign constraint exists on the given column(s)',
        },
        {
          type: 'object_relation',
          name: 'object_relation author in table article in source default',
          definition: {
            source: 'default',
            table: { schema: 'public', name: 'article' },
            name: 'author',
            using: { foreign_key_constraint_on: 'published_on' },
            comment: null,
          },
          reason: 'Inconsistent object: in table "article": in relationship "author": no foreign constraint exists on the given column(s)',
        },
      ]);
    });

    it('reports untracked targets and missing columns as the reference does', async () => {
      const meta = sourceMeta([
        t('author', {
          array_relationships: [
            { name: 'by_fk', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } },
            { name: 'by_manual', using: { manual_configuration: { remote_table: 'article', column_mapping: { id: 'author_id' } } } },
            { name: 'bad_col', using: { manual_configuration: { remote_table: 'author', column_mapping: { nope: 'id' } } } },
            { name: 'bad_remote_col', using: { manual_configuration: { remote_table: 'author', column_mapping: { id: 'nope' } } } },
          ],
        }),
      ]);
      const { inconsistencies } = await resolve(meta, authorArticleCatalog());
      expect(inconsistencies.map((i) => i.reason)).to.deep.equal([
        'Inconsistent object: in table "author": in relationship "by_fk": table "article" does not exist in source: default',
        'Inconsistent object: table "article" is not tracked',
        'Inconsistent object: table "author" has no field named "nope"',
        'Inconsistent object: table "author" has no field named "nope"',
      ]);
    });

    it('reports an object relationship whose foreign key target is not tracked', async () => {
      const meta = sourceMeta([t('article', { object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }] })]);
      const { inconsistencies } = await resolve(meta, authorArticleCatalog());
      expect(inconsistencies.map((i) => i.reason)).to.deep.equal(['Inconsistent object: table "author" is not tracked']);
    });

    it('rejects relationship names that clash with columns or each other', async () => {
      const meta = rels(
        {
          configuration: { column_config: { bio: { custom_name: 'writings' } } },
          array_relationships: [
            { name: 'name', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } },
            { name: 'writings', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } },
            { name: 'twice', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } },
          ],
          object_relationships: [{ name: 'twice', using: { manual_configuration: { remote_table: 'article', column_mapping: { id: 'id' } } } }],
        },
      );
      const { source, inconsistencies } = await resolve(meta, authorArticleCatalog());
      expect(source.tables.get('public.author')!.relationships.size).to.equal(0);
      expect(inconsistencies.map((i) => [i.type, i.reason])).to.have.deep.members([
        ['array_relation', 'Inconsistent object: field definition conflicts with postgres column'],
        ['array_relation', 'Inconsistent object: field definition conflicts with custom field name for postgres column "bio"'],
        ['array_relation', 'Inconsistent object: conflicting definitions for field "twice"'],
        ['object_relation', 'Inconsistent object: conflicting definitions for field "twice"'],
      ]);
    });

    it('reports a malformed using clause', async () => {
      const meta = sourceMeta([t('author', { object_relationships: [{ name: 'x', using: {} }] })]);
      const { inconsistencies } = await resolve(meta, authorArticleCatalog());
      expect(inconsistencies[0]!.reason).to.equal(
        'Inconsistent object: in table "author": in relationship "x": atleast one of foreign_key_constraint_on/manual_configuration should be present',
      );
    });
  });

  describe('enum tables', () => {
    const enumCatalog = () =>
      catalog(
        table('color', { columns: ['value', 'comment'], pk: ['value'] }),
        table('car', { columns: ['id:int4', 'color'], pk: ['id'], fks: [{ columns: ['color'], ref: 'color', refColumns: ['value'] }] }),
      );

    it('loads values with one statement and marks referencing columns', async () => {
      const conn = new FakeConnection({ 'public.color': [{ value: 'red', description: 'Red' }, { value: 'blue' }] });
      const { source, inconsistencies } = await resolveSource(sourceMeta([t('color', { is_enum: true }), t('car')]), enumCatalog(), conn, PG);
      expect(inconsistencies).to.deep.equal([]);
      expect(conn.statements).to.deep.equal(['enum values of public.color (value, comment)']);
      const color = source.tables.get('public.color')!;
      expect(color.isEnum).to.equal(true);
      expect(color.enumValues).to.deep.equal([
        { value: 'red', description: 'Red' },
        { value: 'blue', description: null },
      ]);
      expect(source.tables.get('public.car')!.columnsByName.get('color')!.enumTable).to.equal('public.color');
      expect(source.tables.get('public.car')!.columnsByName.get('id')!.enumTable).to.equal(undefined);
    });

    it('does not mark columns when the referenced table is not an enum', async () => {
      const { source } = await resolve(sourceMeta([t('color'), t('car')]), enumCatalog());
      expect(source.tables.get('public.car')!.columnsByName.get('color')!.enumTable).to.equal(undefined);
    });

    const enumError = async (cat: DatabaseCatalog, rows: EnumRows = { 'public.e': [{ value: 'a' }] }) => {
      const { source, inconsistencies } = await resolve(sourceMeta([t('e', { is_enum: true })]), cat, rows);
      expect(source.tables.size).to.equal(0);
      return inconsistencies[0]!.reason;
    };

    it('requires a single-column text primary key', async () => {
      expect(await enumError(catalog(table('e', { columns: ['value'] })))).to.equal(
        'Inconsistent object: the table "e" cannot be used as an enum because the table must have a primary key',
      );
      // As in the reference, an unusable key leaves every column counted as a non-key column.
      expect(await enumError(catalog(table('e', { columns: ['a', 'b'], pk: ['b', 'a'] })))).to.equal(
        'Inconsistent object: the table "e" cannot be used as an enum for the following reasons:\n' +
          '  • the table’s primary key must not span multiple columns (a, b)\n' +
          '  • the table must have exactly one primary key and optionally one comment column, not 2 columns (a, b)\n',
      );
      expect(await enumError(catalog(table('e', { columns: ['id:int4', 'label'], pk: ['id'] })))).to.equal(
        'Inconsistent object: the table "e" cannot be used as an enum for the following reasons:\n' +
          '  • the table’s primary key ("id") must have type "text", not type "integer"\n' +
          '  • the table must have exactly one primary key and optionally one comment column, not 2 columns (id, label)\n',
      );
      expect(await enumError(catalog(table('e', { columns: ['code:varchar'], pk: ['code'] })))).to.equal(
        'Inconsistent object: the table "e" cannot be used as an enum for the following reasons:\n' +
          '  • the table’s primary key ("code") must have type "text", not type "varchar"\n' +
          '  • the table’s comment column ("code") must have type "text", not type "varchar"\n',
      );
    });

    it('allows one text comment column and nothing else', async () => {
      expect(await enumError(catalog(table('e', { columns: ['value', 'n:int4'], pk: ['value'] })))).to.equal(
        'Inconsistent object: the table "e" cannot be used as an enum because the table’s comment column ("n") must have type "text", not type "integer"',
      );
      expect(await enumError(catalog(table('e', { columns: ['value', 'c', 'd'], pk: ['value'] })))).to.equal(
        'Inconsistent object: the table "e" cannot be used as an enum because the table must have exactly one primary key and optionally one comment column, not 2 columns (c, d)',
      );
      expect(await enumError(catalog(table('e', { columns: ['id:int4', 'c', 'd'], pk: ['id'] })))).to.equal(
        'Inconsistent object: the table "e" cannot be used as an enum for the following reasons:\n' +
          '  • the table’s primary key ("id") must have type "text", not type "integer"\n' +
          '  • the table must have exactly one primary key and optionally one comment column, not 3 columns (c, d, id)\n',
      );
    });

    it('requires rows whose values are GraphQL enum names', async () => {
      const cat = catalog(table('e', { columns: ['value'], pk: ['value'] }));
      expect(await enumError(cat, { 'public.e': [] })).to.equal(
        'Inconsistent object: the table "e" cannot be used as an enum because the table must have at least one row',
      );
      expect(await enumError(cat, { 'public.e': [{ value: 'ok' }, { value: 'not ok' }] })).to.equal(
        'Inconsistent object: the table "e" cannot be used as an enum because the value "not ok" is not a valid GraphQL enum value name',
      );
      expect(await enumError(cat, { 'public.e': [{ value: 'true' }, { value: '1x' }] })).to.equal(
        'Inconsistent object: the table "e" cannot be used as an enum because the values "1x" and "true" are not valid GraphQL enum value names',
      );
      expect(await enumError(cat, { 'public.e': [{ value: 'c d' }, { value: 'a b' }, { value: 'null' }] })).to.equal(
        'Inconsistent object: the table "e" cannot be used as an enum because the values a b, c d, and "null" are not valid GraphQL enum value names',
      );
    });

    it('reports a database error while reading values', async () => {
      expect(await enumError(catalog(table('e', { columns: ['value'], pk: ['value'] })), {})).to.equal(
        'Inconsistent object: the table "e" cannot be used as an enum because postgres error: relation "public.e" does not exist',
      );
    });
  });

  it('checks GraphQL names', () => {
    for (const ok of ['a', '_a', 'A_1', '__typename']) expect(isGraphQLName(ok), ok).to.equal(true);
    for (const bad of ['', '1a', 'a b', 'a-b', 'é']) expect(isGraphQLName(bad), bad).to.equal(false);
  });
});
