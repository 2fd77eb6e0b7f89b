/**
 * The SQL snapshot tests' common part (test/plugins/db/{mssql,mariadb}/conformance-sql.test.ts):
 * each case of sql-cases.ts runs through the engine, and the statements the kind sent for it are
 * checked and compared with the snapshot file (SVC_UPDATE_SNAPSHOTS=1 writes it instead, to be
 * reviewed).
 */
import { expect } from 'chai';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { TestEngine } from '../helpers/inject.js';
import { ADMIN, type Case } from './sql-cases.js';

export interface Recorded {
  sql: string;
  params: unknown[];
}

const UPDATE = process.env['SVC_UPDATE_SNAPSHOTS'] === '1';

/** A metadata request that must succeed. */
export async function metadataOk(engine: TestEngine, body: unknown): Promise<void> {
  const res = await engine.inject<Record<string, unknown>>({ url: '/v1/metadata', headers: ADMIN, body });
  expect(res.body, JSON.stringify(body) + JSON.stringify(res.body)).to.deep.include({ message: 'success' });
}

/**
 * Inside a describe: one test per case. `engine()` is the booted engine, `sent()` the kind's
 * statement log so far (the case's statements are those it adds), `check` what must hold for
 * every statement.
 */
export function pinStatements(snapshot: string, cases: readonly Case[], engine: () => TestEngine, sent: () => readonly Recorded[], check: (s: Recorded) => void): void {
  const recorded: Record<string, Recorded[]> = {};
  const expected: Record<string, Recorded[]> = existsSync(snapshot) ? (JSON.parse(readFileSync(snapshot, 'utf8')) as Record<string, Recorded[]>) : {};

  after(() => {
    if (UPDATE) writeFileSync(snapshot, JSON.stringify(recorded, null, 2) + '\n');
  });

  for (const c of cases) {
    it(c.name, async () => {
      const before = sent().length;
      const res = await engine().inject<{ data?: unknown; errors?: unknown }>({ url: '/v1/graphql', headers: c.headers ?? ADMIN, body: { query: c.query, variables: c.variables } });
      expect(res.body.errors, `${c.name}: ${JSON.stringify(res.body.errors)}`).to.equal(undefined);
      const statements = sent().slice(before);
      recorded[c.name] = statements;
      expect(statements, 'statements sent').to.not.be.empty;
      for (const s of statements) check(s);
      if (!UPDATE) expect(statements).to.deep.equal(expected[c.name], `the snapshot of "${c.name}" (SVC_UPDATE_SNAPSHOTS=1 to rewrite it)`);
    });
  }
}
