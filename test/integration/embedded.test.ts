import { spawnSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { expect } from 'chai';
import pg from 'pg';

import { BootError } from '../../core/errors.js';
import { LOCK_FILE_NAME } from '../../plugins/db/postgres/embedded/lock.js';
import {
  EMBEDDED_MAX_CONNECTIONS,
  EMBEDDED_PG_MAJOR,
  startEmbeddedPostgres,
  type EmbeddedLogLevel,
  type EmbeddedPostgres,
} from '../../plugins/db/postgres/embedded/pglite.js';
import { rejection } from '../helpers/rejection.js';

interface LogEntry {
  level: EmbeddedLogLevel;
  message: string;
  detail?: Record<string, unknown>;
}


function newPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: EMBEDDED_MAX_CONNECTIONS });
  pool.on('error', () => undefined);
  return pool;
}

/** A pid that belonged to a process which has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (child.pid === undefined) throw new Error('could not spawn a child process');
  return child.pid;
}

const PEOPLE_QUERY = `
  select coalesce(json_agg(row_to_json(p) order by p.id), '[]')::text as result
  from (
    select a.id, a.name, x.pets
    from person a
    left join lateral (
      select json_agg(json_build_object('name', pet.name) order by pet.name) as pets
      from pet where pet.owner_id = a.id
    ) x on true
  ) p`;

describe('embedded PostgreSQL (PGlite over a socket)', function () {
  this.timeout(60_000);

  let root: string;
  let dataDir: string;
  let first: EmbeddedPostgres | undefined;
  let second: EmbeddedPostgres | undefined;

  before(async () => {
    root = await fs.mkdtemp(path.join(tmpdir(), 'svc-graphql-engine-embedded-'));
    dataDir = path.join(root, 'data');
  });

  after(async () => {
    await first?.stop().catch(() => undefined);
    await second?.stop().catch(() => undefined);
    await fs.rm(root, { recursive: true, force: true });
  });

  it('starts on a new directory, serves pg clients, and locks the directory', async () => {
    const logs: LogEntry[] = [];
    first = await startEmbeddedPostgres({ dataDir, log: (level, message, detail) => logs.push({ level, message, detail }) });
    expect(first.dataDir).to.equal(path.resolve(dataDir));
    expect(first.url).to.match(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
    expect(logs.some((l) => l.level === 'info' && l.detail?.created === true)).to.equal(true);

    const lock = JSON.parse(await fs.readFile(path.join(dataDir, LOCK_FILE_NAME), 'utf8')) as { pid: number };
    expect(lock.pid).to.equal(process.pid);
    // Guards the constant used to reject data directories of another major version.
    expect((await fs.readFile(path.join(dataDir, 'PG_VERSION'), 'utf8')).trim()).to.equal(EMBEDDED_PG_MAJOR);

    const pool = newPool(first.url);
    try {
      await pool.query(`
        create table person (id serial primary key, name text not null);
        create table pet (id uuid primary key default gen_random_uuid(), owner_id int references person(id), name text);
        insert into person (name) values ('ada'), ('bob');
        insert into pet (owner_id, name) values (1, 'rex'), (1, 'tom');`);

      const { rows } = await pool.query<{ result: string }>(PEOPLE_QUERY);
      expect(JSON.parse(rows[0]!.result)).to.deep.equal([
        { id: 1, name: 'ada', pets: [{ name: 'rex' }, { name: 'tom' }] },
        { id: 2, name: 'bob', pets: null },
      ]);

      const byId = { name: 'person_by_id', text: 'select name from person where id = $1' };
      expect((await pool.query({ ...byId, values: [1] })).rows).to.deep.equal([{ name: 'ada' }]);
      expect((await pool.query({ ...byId, values: [2] })).rows).to.deep.equal([{ name: 'bob' }]);

      const arrays = await pool.query({ text: 'select id, name from person order by id', rowMode: 'array' });
      expect(arrays.rows).to.deep.equal([
        [1, 'ada'],
        [2, 'bob'],
      ]);

      // A replaced connection must not inherit the old one's prepared statements.
      const client = await pool.connect();
      client.release(new Error('discard this connection'));
      expect((await pool.query({ ...byId, values: [2] })).rows).to.deep.equal([{ name: 'bob' }]);
    } finally {
      await pool.end();
    }
  });

  it('refuses a second start on a directory in use', async () => {
    const error = await rejection(startEmbeddedPostgres({ dataDir }));
    expect(error).to.be.instanceOf(BootError);
    expect((error as BootError).code).to.equal('E_DATA_DIR_LOCKED');
    expect((error as BootError).message).to.include(path.resolve(dataDir)).and.include(String(process.pid));
  });

  it('refuses a directory locked by another live process, leaving its lock alone', async () => {
    const other = path.join(root, 'held-elsewhere');
    await fs.mkdir(other);
    const lockPath = path.join(other, LOCK_FILE_NAME);
    // Our parent process is alive and is not us: it stands in for another engine.
    const foreign = JSON.stringify({ pid: process.ppid, hostname: 'elsewhere', startedAt: new Date().toISOString(), token: 't' });
    await fs.writeFile(lockPath, foreign);
    const error = await rejection(startEmbeddedPostgres({ dataDir: other }));
    expect((error as BootError).code).to.equal('E_DATA_DIR_LOCKED');
    expect((error as BootError).message).to.include(path.resolve(other)).and.include(String(process.ppid));
    expect(await fs.readFile(lockPath, 'utf8')).to.equal(foreign);
  });

  it('refuses a non-empty directory that is not a database', async () => {
    const other = path.join(root, 'not-a-database');
    await fs.mkdir(other);
    await fs.writeFile(path.join(other, 'notes.txt'), 'keep me');
    const error = await rejection(startEmbeddedPostgres({ dataDir: other }));
    expect((error as BootError).code).to.equal('E_DATABASE_UNAVAILABLE');
    expect(existsSync(path.join(other, LOCK_FILE_NAME))).to.equal(false);
  });

  it('refuses data of another PostgreSQL major version before starting PGlite', async () => {
    const other = path.join(root, 'old-major');
    await fs.mkdir(other);
    await fs.writeFile(path.join(other, 'PG_VERSION'), '16\n');
    const error = await rejection(startEmbeddedPostgres({ dataDir: other }));
    expect((error as BootError).code).to.equal('E_DATABASE_UNAVAILABLE');
    expect((error as BootError).message).to.include('PostgreSQL 16');
  });

  it('stops idempotently and releases the lock', async () => {
    const stopping = first!.stop();
    expect(first!.stop()).to.equal(stopping);
    await stopping;
    expect(existsSync(path.join(dataDir, LOCK_FILE_NAME))).to.equal(false);
  });

  it('takes over a stale lock and finds the data persisted', async () => {
    const stalePid = deadPid();
    await fs.writeFile(
      path.join(dataDir, LOCK_FILE_NAME),
      JSON.stringify({ pid: stalePid, hostname: 'elsewhere', startedAt: new Date(0).toISOString(), token: 'old' }),
    );
    const logs: LogEntry[] = [];
    second = await startEmbeddedPostgres({ dataDir, log: (level, message, detail) => logs.push({ level, message, detail }) });
    expect(logs.some((l) => l.level === 'warn' && l.detail?.stalePid === stalePid)).to.equal(true);
    expect(logs.some((l) => l.level === 'info' && l.detail?.created === false)).to.equal(true);

    const pool = newPool(second.url);
    try {
      const { rows } = await pool.query<{ result: string }>(PEOPLE_QUERY);
      expect(JSON.parse(rows[0]!.result)).to.have.length(2);
    } finally {
      await pool.end();
    }
    await second.stop();
    expect(existsSync(path.join(dataDir, LOCK_FILE_NAME))).to.equal(false);
  });
});
