/** The conformance suite against the mariadb kind, on the machine's MariaDB in a database of its own. */
import { createConnection } from 'mysql2/promise';
import { ARTICLES, AUTHORS } from './fixture.js';
import { conformanceSuite } from './suite.js';

const DATABASE = 'maria_conformance';
const SERVER = { host: process.env['SVC_TEST_MARIADB_HOST'] ?? '127.0.0.1', port: Number(process.env['SVC_TEST_MARIADB_PORT'] ?? 3306), user: 'root' };

async function onServer(fn: (run: (sql: string, values?: unknown[]) => Promise<void>) => Promise<void>): Promise<void> {
  const conn = await createConnection(SERVER);
  try {
    await fn(async (sql, values) => {
      await conn.query(sql, values);
    });
  } finally {
    await conn.end();
  }
}

conformanceSuite({
  name: 'mariadb',
  prefix: 'maria',
  plugin: 'db/mariadb',
  titleConstraint: 'article_title_key',
  capabilities: {
    distinctOn: false,
    mutations: true,
    onConflict: true,
    operators: ['_eq', '_neq', '_gt', '_lt', '_gte', '_lte', '_in', '_nin', '_is_null', '_like', '_nlike', '_ilike', '_nilike', '_similar', '_nsimilar', '_regex', '_nregex', '_iregex', '_niregex'],
    aggregatePredicates: ['bool_and', 'bool_or', 'count'],
  },
  async setup() {
    await onServer(async (run) => {
      await run(`DROP DATABASE IF EXISTS ${DATABASE}`);
      await run(`CREATE DATABASE ${DATABASE} CHARACTER SET utf8mb4`);
      await run(`CREATE TABLE ${DATABASE}.author (id INT PRIMARY KEY, name VARCHAR(50) NOT NULL, rating INT NULL) ENGINE=InnoDB`);
      await run(`CREATE TABLE ${DATABASE}.article (id INT AUTO_INCREMENT PRIMARY KEY, title VARCHAR(100) NOT NULL,
        author_id INT NULL, published BOOLEAN NOT NULL, views INT NULL,
        CONSTRAINT article_title_key UNIQUE (title), FOREIGN KEY (author_id) REFERENCES ${DATABASE}.author (id)) ENGINE=InnoDB`);
      for (const a of AUTHORS) await run(`INSERT INTO ${DATABASE}.author VALUES (?, ?, ?)`, [...a]);
      for (const a of ARTICLES) await run(`INSERT INTO ${DATABASE}.article (title, author_id, published, views) VALUES (?, ?, ?, ?)`, [...a]);
    });
    return { configuration: { connection_info: { host: SERVER.host, port: SERVER.port, user: SERVER.user, database: DATABASE } }, schema: DATABASE };
  },
  async teardown() {
    await onServer((run) => run(`DROP DATABASE IF EXISTS ${DATABASE}`));
  },
});
