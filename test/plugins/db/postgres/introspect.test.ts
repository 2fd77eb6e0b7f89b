import { expect } from 'chai';
import type { CatalogColumn, CatalogTable, DatabaseCatalog } from '../../../../core/db/catalog.js';
import { introspectPostgres } from '../../../../plugins/db/postgres/introspect.js';
import { PgSourcePool } from '../../../../plugins/db/postgres/pool.js';
import { FIXTURE_SQL } from './fixture-schema.js';
import { createTestDatabase, dropTestDatabase, resolvedFor, runScript } from './helpers.js';

/** A column as most are: plain, nullable, no default, no comment, a pg_catalog type. */
function col(name: string, position: number, type: string, extra: Partial<CatalogColumn> = {}): CatalogColumn {
  return {
    name,
    position,
    type,
    typeSchema: 'pg_catalog',
    typeKind: 'base',
    nullable: true,
    hasDefault: false,
    isIdentity: false,
    isGenerated: false,
    description: null,
    ...extra,
  };
}

const WRITABLE = { insertable: true, updatable: true, deletable: true } as const;
const READ_ONLY = { insertable: false, updatable: false, deletable: false } as const;

describe('db/postgres introspection', function () {
  this.timeout(60_000);
  let dbName: string;
  let pool: PgSourcePool;
  let catalog: DatabaseCatalog;
  const table = (schema: string, name: string): CatalogTable => {
    const t = catalog.tables.find((x) => x.schema === schema && x.name === name);
    if (!t) throw new Error(`table ${schema}.${name} not in catalog`);
    return t;
  };

  before(async () => {
    dbName = await createTestDatabase('svc_test_introspect');
    await runScript(dbName, FIXTURE_SQL);
    pool = new PgSourcePool(resolvedFor(dbName));
    catalog = await introspectPostgres(pool);
  });

  after(async () => {
    await pool?.close();
    if (dbName) await dropTestDatabase(dbName);
  });

  it('lists user relations of every kind, sorted, hiding system and engine schemas', () => {
    expect(catalog.tables.map((t) => [`${t.schema}.${t.name}`, t.kind])).to.deep.equal([
      ['other.edition', 'table'],
      ['other.edition_review', 'table'],
      ['other.remote_thing', 'foreign_table'],
      ['public.article', 'table'],
      ['public.article_count', 'materialized_view'],
      ['public.author', 'table'],
      ['public.author_stats', 'view'],
      ['public.comment', 'table'],
      ['public.event_log', 'partitioned_table'],
      ['public.event_log_2024', 'table'],
      ['public.event_log_2025', 'table'],
      ['public.event_ref', 'table'],
      ['public.published_article', 'view'],
    ]);
  });

  it('describes a table completely: identity, generated, domain, enum, array, jsonb, comments, keys', () => {
    expect(table('public', 'author')).to.deep.equal({
      schema: 'public',
      name: 'author',
      kind: 'table',
      description: 'Writers',
      columns: [
        col('id', 1, 'int4', {
          nullable: false,
          hasDefault: true,
          isIdentity: true,
          identityGeneration: 'always',
        }),
        col('name', 2, 'text', { nullable: false, description: 'Full name' }),
        col('email', 3, 'email', { typeSchema: 'public', typeKind: 'domain', baseType: 'text' }),
        // A domain over a domain reports the innermost base type.
        col('work_email', 4, 'work_email', { typeSchema: 'public', typeKind: 'domain', baseType: 'text' }),
        col('mood', 5, 'mood', { typeSchema: 'public', typeKind: 'enum', hasDefault: true }),
        col('tags', 6, '_text', { typeKind: 'array', elementType: 'text' }),
        col('profile', 7, 'jsonb'),
        col('created_at', 8, 'timestamptz', { nullable: false, hasDefault: true }),
        col('name_upper', 9, 'text', { hasDefault: true, isGenerated: true }),
      ],
      primaryKey: { name: 'author_pkey', columns: ['id'] },
      uniqueConstraints: [{ name: 'author_email_key', columns: ['email'] }],
      foreignKeys: [],
      ...WRITABLE,
    });
  });

  it('keeps attnum positions across dropped columns, by-default identity, and types from other schemas', () => {
    const article = table('public', 'article');
    expect(article.columns).to.deep.equal([
      col('id', 1, 'int8', { nullable: false, hasDefault: true, isIdentity: true, identityGeneration: 'by_default' }),
      col('author_id', 2, 'int4', { nullable: false }),
      col('title', 3, 'text', { nullable: false }),
      col('body', 5, 'text'),
      col('published', 6, 'bool', { nullable: false, hasDefault: true }),
      col('rating', 7, 'numeric'),
      col('color', 8, 'color', { typeSchema: 'other', typeKind: 'enum' }),
    ]);
    // Unique constraint columns come in key order, not table order.
    expect(article.uniqueConstraints).to.deep.equal([{ name: 'article_title_author_key', columns: ['title', 'author_id'] }]);
    expect(article.foreignKeys).to.deep.equal([
      {
        name: 'article_author_id_fkey',
        columns: ['author_id'],
        refTable: { schema: 'public', name: 'author' },
        refColumns: ['id'],
      },
    ]);
  });

  it('reports foreign keys sorted by name, serial defaults, and cross-schema references', () => {
    const comment = table('public', 'comment');
    expect(comment.columns[0]).to.deep.equal(col('id', 1, 'int4', { nullable: false, hasDefault: true }));
    expect(comment.foreignKeys).to.deep.equal([
      {
        name: 'comment_article_id_fkey',
        columns: ['article_id'],
        refTable: { schema: 'public', name: 'article' },
        refColumns: ['id'],
      },
      {
        name: 'comment_commenter_id_fkey',
        columns: ['commenter_id'],
        refTable: { schema: 'public', name: 'author' },
        refColumns: ['id'],
      },
    ]);
    const edition = table('other', 'edition');
    expect(edition.description).to.equal('Printed editions');
    expect(edition.primaryKey).to.deep.equal({ name: 'edition_pkey', columns: ['article_id', 'edition_no'] });
    expect(edition.foreignKeys[0]!.refTable).to.deep.equal({ schema: 'public', name: 'article' });
  });

  it('reports multi-column foreign keys with both sides in key order', () => {
    expect(table('other', 'edition_review').foreignKeys).to.deep.equal([
      {
        name: 'edition_review_edition_fkey',
        columns: ['edition_no', 'article_id'],
        refTable: { schema: 'other', name: 'edition' },
        refColumns: ['edition_no', 'article_id'],
      },
    ]);
  });

  it('reports a foreign key to a partitioned table once, not once per partition', () => {
    expect(table('public', 'event_ref').foreignKeys).to.deep.equal([
      {
        name: 'event_ref_event_fkey',
        columns: ['event_id', 'event_at'],
        refTable: { schema: 'public', name: 'event_log' },
        refColumns: ['id', 'happened_at'],
      },
    ]);
    expect(table('public', 'event_log').primaryKey).to.deep.equal({
      name: 'event_log_pkey',
      columns: ['id', 'happened_at'],
    });
    expect(table('public', 'event_log')).to.include(WRITABLE);
  });

  it('tells updatable views from read-only ones, and materialized/foreign tables', () => {
    expect(table('public', 'published_article')).to.deep.equal({
      schema: 'public',
      name: 'published_article',
      kind: 'view',
      description: 'Only what readers see',
      // View columns never carry NOT NULL.
      columns: [col('id', 1, 'int8'), col('title', 2, 'text'), col('author_id', 3, 'int4')],
      primaryKey: null,
      uniqueConstraints: [],
      foreignKeys: [],
      ...WRITABLE,
    });
    expect(table('public', 'author_stats')).to.include(READ_ONLY);
    expect(table('public', 'author_stats').columns).to.deep.equal([col('author_id', 1, 'int4'), col('n', 2, 'int8')]);
    expect(table('public', 'article_count')).to.include(READ_ONLY);
    // The wrapper has no handler: pg_relation_is_updatable() would raise; introspection must not.
    expect(table('other', 'remote_thing')).to.include(READ_ONLY);
    expect(table('other', 'remote_thing').columns).to.deep.equal([col('id', 1, 'int4'), col('label', 2, 'text')]);
  });

  it('lists enums with values in declaration order and comments', () => {
    expect(catalog.enums).to.deep.equal([
      { schema: 'other', name: 'color', values: ['red', 'green'], description: null },
      { schema: 'public', name: 'mood', values: ['happy', 'sad', 'ok'], description: 'How an author feels' },
    ]);
  });

  it('lists plain functions only, with arguments, defaults, volatility and return types', async () => {
    const oids = await pool.query<{ proname: string; oid: number }>(
      `SELECT proname, oid::int8 AS oid FROM pg_proc WHERE proname IN
         ('search_articles', 'add_numbers', 'anon_args', 'split_name', 'touch')`,
    );
    const oid = (name: string): number => Number(oids.rows.find((r) => r.proname === name)!.oid);
    expect(catalog.functions).to.deep.equal([
      {
        schema: 'other',
        name: 'split_name',
        oid: oid('split_name'),
        volatility: 'volatile',
        returnType: 'record',
        returnTypeSchema: 'pg_catalog',
        returnTypeKind: 'pseudo',
        hasVariadic: false,
        returnsSet: false,
        returnsTable: null,
        // OUT arguments are results, not inputs; the INOUT one is both and holds the default.
        args: [
          { name: 'full_name', type: 'text', typeSchema: 'pg_catalog', typeKind: 'base', hasDefault: false },
          { name: 'sep', type: 'text', typeSchema: 'pg_catalog', typeKind: 'base', hasDefault: true },
        ],
        description: null,
        language: 'sql',
      },
      {
        schema: 'public',
        name: 'add_numbers',
        oid: oid('add_numbers'),
        volatility: 'immutable',
        returnType: 'int4',
        returnTypeSchema: 'pg_catalog',
        returnTypeKind: 'base',
        hasVariadic: false,
        returnsSet: false,
        returnsTable: null,
        args: [
          { name: 'a', type: 'int4', typeSchema: 'pg_catalog', typeKind: 'base', hasDefault: false },
          { name: 'b', type: 'int4', typeSchema: 'pg_catalog', typeKind: 'base', hasDefault: false },
        ],
        description: null,
        language: 'sql',
      },
      {
        schema: 'public',
        name: 'anon_args',
        oid: oid('anon_args'),
        volatility: 'volatile',
        returnType: 'text',
        returnTypeSchema: 'pg_catalog',
        returnTypeKind: 'base',
        hasVariadic: false,
        returnsSet: false,
        returnsTable: null,
        args: [
          { name: null, type: 'int4', typeSchema: 'pg_catalog', typeKind: 'base', hasDefault: false },
          { name: null, type: 'text', typeSchema: 'pg_catalog', typeKind: 'base', hasDefault: false },
        ],
        description: null,
        language: 'sql',
      },
      {
        schema: 'public',
        name: 'search_articles',
        oid: oid('search_articles'),
        volatility: 'stable',
        returnType: 'article',
        returnTypeSchema: 'public',
        returnTypeKind: 'composite',
        hasVariadic: false,
        returnsSet: true,
        returnsTable: { schema: 'public', name: 'article' },
        args: [
          { name: 'search', type: 'text', typeSchema: 'pg_catalog', typeKind: 'base', hasDefault: false },
          { name: 'max_rating', type: 'numeric', typeSchema: 'pg_catalog', typeKind: 'base', hasDefault: true },
        ],
        description: 'Articles whose title matches',
        language: 'sql',
      },
      {
        schema: 'public',
        name: 'touch',
        oid: oid('touch'),
        volatility: 'volatile',
        returnType: 'void',
        returnTypeSchema: 'pg_catalog',
        returnTypeKind: 'pseudo',
        hasVariadic: false,
        returnsSet: false,
        returnsTable: null,
        args: [],
        description: null,
        language: 'plpgsql',
      },
    ]);
  });

  it('reports the server version as a bare number and numerically', async () => {
    const r = await pool.query<{ v: string }>(`SELECT current_setting('server_version_num') AS v`);
    expect(catalog.serverVersion).to.match(/^\d+(\.\d+)*$/);
    expect(catalog.serverVersionNum).to.equal(Number(r.rows[0]!.v));
    expect(catalog.serverVersion.split('.')[0]).to.equal(String(Math.floor(catalog.serverVersionNum! / 10000)));
  });

  it('works on an empty database and inside a read-only transaction', async () => {
    const empty = await createTestDatabase('svc_test_introspect_empty');
    const p = new PgSourcePool(resolvedFor(empty));
    try {
      const c = await p.withTransaction('repeatable-read', true, (tx) => introspectPostgres(tx));
      expect(c.tables).to.deep.equal([]);
      expect(c.enums).to.deep.equal([]);
      expect(c.functions).to.deep.equal([]);
    } finally {
      await p.close();
      await dropTestDatabase(empty);
    }
  });
});
