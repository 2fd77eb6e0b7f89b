/** The conformance suite against the postgres kind, in a fresh database of its own. */
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { ARTICLES, AUTHORS } from './fixture.js';
import { conformanceSuite } from './suite.js';

let db: TestDatabase | undefined;

conformanceSuite({
  name: 'postgres',
  prefix: 'pg',
  plugin: 'db/postgres',
  titleConstraint: 'article_title_key',
  capabilities: {
    distinctOn: true,
    mutations: true,
    onConflict: true,
    operators: ['_eq', '_neq', '_gt', '_lt', '_gte', '_lte', '_in', '_nin', '_is_null', '_like', '_nlike', '_ilike', '_nilike', '_similar', '_nsimilar', '_regex', '_nregex', '_iregex', '_niregex'],
    aggregatePredicates: ['bool_and', 'bool_or', 'count'],
  },
  async setup() {
    db = await createTestDatabase('mariadb_pgfix');
    await db.sql(`
      CREATE TABLE author (id int PRIMARY KEY, name varchar(50) NOT NULL, rating int);
      CREATE TABLE article (id serial PRIMARY KEY, title varchar(100) NOT NULL CONSTRAINT article_title_key UNIQUE,
        author_id int REFERENCES author(id), published boolean NOT NULL, views int);`);
    for (const a of AUTHORS) await db.sql('INSERT INTO author VALUES ($1, $2, $3)', [...a]);
    for (const a of ARTICLES) await db.sql('INSERT INTO article (title, author_id, published, views) VALUES ($1, $2, $3, $4)', [...a]);
    return { configuration: { connection_info: { database_url: db.url } }, schema: 'public' };
  },
  async teardown() {
    await db?.drop();
  },
});
