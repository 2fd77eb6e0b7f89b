/**
 * The mariadb kind is built on the SDK alone: its files import only core/sdk, node built-ins,
 * its own folder and its npm dependency (mysql2). Also: loading it opens nothing (its pools open
 * on first use), configurations are checked without I/O, and the compiler keeps values out of
 * the statement text and quotes identifiers.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseKind, MutationIR, RootFieldIR } from '../../../../core/sdk/index.js';
import { createConnection } from 'mysql2/promise';
import { createTestKernel, similarToRegex, TIME_LIMIT_EXCEEDED_MESSAGE } from '../../../../core/sdk/index.js';
import { parseMariaConfiguration, resolveMariaConfiguration } from '../../../../plugins/db/mariadb/config.js';
import { compileRootField, type MariaStatement } from '../../../../plugins/db/mariadb/sql/compile.js';
import { quoteIdent } from '../../../../plugins/db/mariadb/sql/quote.js';
import mariadb from '../../../../plugins/db/mariadb/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const PLUGIN = join(ROOT, 'plugins', 'db', 'mariadb');
const SDK = join(ROOT, 'core', 'sdk', 'index');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('db/mariadb plugin', () => {
  it('imports nothing but the SDK, node built-ins, its own files and mysql2', () => {
    const offences: string[] = [];
    for (const file of files(PLUGIN)) {
      const text = readFileSync(file, 'utf8');
      const statics = text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]/gm);
      const dynamics = text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g);
      for (const m of [...statics, ...dynamics]) {
        const spec = m[1]!;
        if (spec.startsWith('.')) {
          const target = resolve(dirname(file), spec).replace(/\.(ts|js)$/, '');
          if (target !== SDK && !target.startsWith(PLUGIN + '/')) offences.push(`${relative(ROOT, file)}: ${spec}`);
        } else if (!(spec.startsWith('node:') || builtinModules.includes(spec) || spec === 'mysql2' || spec.startsWith('mysql2/'))) {
          offences.push(`${relative(ROOT, file)}: ${spec}`);
        }
      }
    }
    expect(offences).to.deep.equal([]);
  });

  it('registers the kind without connecting, and declares mutations and subscriptions', async () => {
    const kernel = await createTestKernel({ plugins: [mariadb] });
    const kind = kernel.container.resolve<DatabaseKind>('db.mariadb');
    expect(kind.prefix).to.equal('maria');
    expect(kind.capabilities).to.deep.equal({ mutations: true, subscriptions: true });
    // Nothing listens on this port: connecting is lazy, so this must not throw.
    const conn = kind.connect('x', { connection_info: { host: '127.0.0.1', port: 1, database: 'none' } });
    const health = await conn.health(2000);
    expect(health.status).to.equal('ERROR');
    await conn.close();
  });

  it('stops a read at its deadline with time-limit-exceeded (on the machine\'s MariaDB)', async () => {
    const kernel = await createTestKernel({ plugins: [mariadb] });
    const kind = kernel.container.resolve<DatabaseKind>('db.mariadb');
    const conn = kind.connect('x', { connection_info: { host: '127.0.0.1', database: 'mysql' } });
    try {
      const sleepy: MariaStatement = { text: 'SELECT SLEEP(5) AS root', params: [], name: 'sleep', order: [] };
      const started = Date.now();
      const err = await conn.runQuery(sleepy, '{}', [], { deadline: Date.now() + 300 }).then(
        () => null,
        (e: unknown) => e as { code?: string; message?: string },
      );
      expect(err?.code).to.equal('time-limit-exceeded');
      expect(err?.message).to.equal(TIME_LIMIT_EXCEEDED_MESSAGE);
      expect(Date.now() - started).to.be.below(2000);
      expect(await conn.runQuery({ ...sleepy, text: "SELECT '[1]' AS root" }, '{}', [])).to.equal('[1]');
    } finally {
      await conn.close();
    }
  });

  it('runs a mutation in one transaction, and none past its deadline (on the machine\'s MariaDB)', async () => {
    const admin = await createConnection({ host: '127.0.0.1', user: 'root' });
    await admin.query('DROP DATABASE IF EXISTS maria_plugin_test');
    await admin.query('CREATE DATABASE maria_plugin_test');
    await admin.query('CREATE TABLE maria_plugin_test.t (id INT PRIMARY KEY, v INT)');
    const kernel = await createTestKernel({ plugins: [mariadb] });
    const conn = kernel.container.resolve<DatabaseKind>('db.mariadb').connect('x', { connection_info: { host: '127.0.0.1', database: 'maria_plugin_test' } });
    try {
      const value = (v: unknown) => ({ value: { kind: 'const' as const, value: v }, dbType: 'integer' });
      const ir: MutationIR = {
        kind: 'insert',
        source: 'x',
        errorPath: '$.selectionSet.insert_t',
        insert: {
          table: { schema: 'maria_plugin_test', name: 't' },
          rows: [1, 2].map((id) => ({ columns: [{ column: 'id', value: value(id) }, { column: 'v', value: value(id * 10) }], relationships: [] })),
          check: null,
          updateCheck: null,
          onConflict: null,
        },
        returning: { output: { kind: 'response', fields: [{ kind: 'affectedRows', alias: 'affected_rows' }] }, selectFilter: null },
      };
      const mutation = conn.compileMutation!(ir, { stringifyNumericTypes: false });
      const late = await conn.runMutations!([{ mutation, values: [1, 10, 2, 20] }], '{}', { deadline: Date.now() - 1 }).then(
        () => null,
        (e: unknown) => e as { code?: string },
      );
      expect(late?.code).to.equal('time-limit-exceeded');
      const [rows] = await admin.query('SELECT COUNT(*) AS n FROM maria_plugin_test.t');
      expect((rows as Array<{ n: number }>)[0]!.n).to.equal(0);
      expect(await conn.runMutations!([{ mutation, values: [1, 10, 2, 20] }], '{}')).to.deep.equal(['{"affected_rows":2}']);
      // A duplicate key rolls back the whole batch.
      const dup = await conn.runMutations!([{ mutation, values: [3, 30, 1, 10] }], '{}').then(
        () => null,
        (e: unknown) => e as { code?: string },
      );
      expect(dup?.code).to.equal('constraint-violation');
      const [after] = await admin.query('SELECT COUNT(*) AS n FROM maria_plugin_test.t');
      expect((after as Array<{ n: number }>)[0]!.n).to.equal(2);
    } finally {
      await conn.close();
      await admin.query('DROP DATABASE IF EXISTS maria_plugin_test');
      await admin.end();
    }
  });

  it('checks configurations without I/O and reads from_env only when connecting', () => {
    expect(() => parseMariaConfiguration({ connection_info: { database_url: 'mysql://root@h/db', host: 'h' } }, '$')).to.throw(/cannot be given/);
    expect(() => parseMariaConfiguration({ connection_info: { host: 'h' } }, '$')).to.throw(/database/);
    expect(() => parseMariaConfiguration({ connection_info: { database: 'd', port: 0 } }, '$')).to.throw(/port/);
    const cfg = { connection_info: { database_url: { from_env: 'MARIA_TEST_URL' } } };
    parseMariaConfiguration(cfg, '$');
    expect(() => resolveMariaConfiguration(cfg, {})).to.throw(/MARIA_TEST_URL/);
    expect(resolveMariaConfiguration(cfg, { MARIA_TEST_URL: 'mysql://u:p%40@db.local:3307/shop' })).to.include({ host: 'db.local', port: 3307, user: 'u', password: 'p@', database: 'shop' });
  });

  it('quotes identifiers with backticks and sends every value as a parameter', () => {
    expect(quoteIdent('a`b')).to.equal('`a``b`');
    const ir: RootFieldIR = {
      kind: 'select',
      source: 's',
      single: false,
      select: {
        from: { schema: 'db`x', name: 't' },
        where: { kind: 'compare', lhs: { kind: 'column', name: 'c`1', type: 'text' }, op: '_eq', rhs: { value: { kind: 'const', value: "x' OR 1=1 --" }, dbType: 'text' } },
        permissionFilter: null,
        orderBy: [],
        distinctOn: [],
        limit: null,
        offset: null,
        permissionLimit: null,
        fields: [{ kind: 'column', alias: 'c', name: 'c`1', type: 'text' }],
      },
    };
    const st = compileRootField(ir, { stringifyNumericTypes: false });
    expect(st.text).to.not.include('OR 1=1');
    expect(st.text).to.include('`db``x`.`t`');
    expect(st.text).to.include('`c``1` = ?');
    // Text equality: once through the collation (indexes), once byte for byte.
    expect(st.text).to.include('`c``1` = BINARY ?');
    expect(st.order).to.have.length(2);
  });

  it('translates SIMILAR TO patterns into anchored regular expressions', () => {
    expect(similarToRegex('(A|G)%')).to.equal('^(?:(A|G).*)$');
    expect(similarToRegex('a_b.c')).to.equal('^(?:a.b\\.c)$');
  });
});
