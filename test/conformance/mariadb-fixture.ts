/** The conformance fixture in a MariaDB database of its own, on the machine's server (SVC_TEST_MARIADB_HOST/PORT). */
import { createConnection } from 'mysql2/promise';
import { ARTICLES, AUTHORS } from './fixture.js';

export const MARIA_SERVER = { host: process.env['SVC_TEST_MARIADB_HOST'] ?? '127.0.0.1', port: Number(process.env['SVC_TEST_MARIADB_PORT'] ?? 3306), user: 'root' };

export async function onMariaServer(fn: (run: (sql: string, values?: unknown[]) => Promise<void>) => Promise<void>): Promise<void> {
  const conn = await createConnection(MARIA_SERVER);
  try {
    await fn(async (sql, values) => {
      await conn.query(sql, values);
    });
  } finally {
    await conn.end();
  }
}

/** Creates `database` afresh with the fixture's tables and rows. */
export function createMariaFixture(database: string): Promise<void> {
  return onMariaServer(async (run) => {
    await run(`DROP DATABASE IF EXISTS ${database}`);
    await run(`CREATE DATABASE ${database} CHARACTER SET utf8mb4`);
    await run(`CREATE TABLE ${database}.author (id INT PRIMARY KEY, name VARCHAR(50) NOT NULL, rating INT NULL) ENGINE=InnoDB`);
    await run(`CREATE TABLE ${database}.article (id INT AUTO_INCREMENT PRIMARY KEY, title VARCHAR(100) NOT NULL,
      author_id INT NULL, published BOOLEAN NOT NULL, views INT NULL,
      CONSTRAINT article_title_key UNIQUE (title), FOREIGN KEY (author_id) REFERENCES ${database}.author (id)) ENGINE=InnoDB`);
    for (const a of AUTHORS) await run(`INSERT INTO ${database}.author VALUES (?, ?, ?)`, [...a]);
    for (const a of ARTICLES) await run(`INSERT INTO ${database}.article (title, author_id, published, views) VALUES (?, ?, ?, ?)`, [...a]);
  });
}

export const dropMariaDatabase = (database: string): Promise<void> => onMariaServer((run) => run(`DROP DATABASE IF EXISTS ${database}`));
