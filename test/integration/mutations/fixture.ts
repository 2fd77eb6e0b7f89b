/**
 * The mutation tests' database: the read-API sample schema (author → article → comment) plus
 * what mutations need to be observed: a trigger copying `svc.user` into `session_log`, a check
 * constraint, an exclusion constraint, triggers raising a restrict violation and a plain error.
 * Helpers run GraphQL as admin or as a role (no admin secret: `X-Svc-Role` picks the role) and
 * write permissions with `replace_metadata`.
 */
import type { Engine } from '../../../core/engine.js';
import type { ServerConfig } from '../../../core/config/types.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { graphql, metadata, startTestEngine } from '../../helpers/engine.js';
import { SCHEMA_SQL, TRACK_BULK } from '../read-api/fixture.js';

export const EXTRA_SQL = `
ALTER TABLE article ADD CONSTRAINT article_rating_range CHECK (rating IS NULL OR rating BETWEEN 0 AND 10);
CREATE TABLE session_log (id serial PRIMARY KEY, table_name text NOT NULL, session text);
CREATE FUNCTION log_session() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO session_log (table_name, session) VALUES (TG_TABLE_NAME, current_setting('svc.user', true));
  RETURN NEW;
END $$;
CREATE TRIGGER author_session_log AFTER INSERT OR UPDATE ON author FOR EACH ROW EXECUTE FUNCTION log_session();
CREATE TABLE booking (
  id serial PRIMARY KEY,
  room int NOT NULL,
  during int4range NOT NULL,
  locked boolean NOT NULL DEFAULT false,
  EXCLUDE USING gist (during WITH &&)
);
CREATE FUNCTION refuse_locked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.locked THEN RAISE EXCEPTION 'booking % is locked', OLD.id USING ERRCODE = 'restrict_violation'; END IF;
  RETURN OLD;
END $$;
CREATE TRIGGER booking_locked BEFORE DELETE ON booking FOR EACH ROW EXECUTE FUNCTION refuse_locked();
CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.body = 'boom' THEN RAISE EXCEPTION 'the comment trigger exploded'; END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER comment_boom BEFORE INSERT ON comment FOR EACH ROW EXECUTE FUNCTION boom();
INSERT INTO booking (room, during, locked) VALUES (1, '[1,5)', true);
`;

export const EXTRA_TRACKING = [
  { type: 'pg_track_table', args: { table: 'booking' } },
  { type: 'pg_track_table', args: { table: 'session_log' } },
];

export interface MutationFixture {
  db: TestDatabase;
  engine: Engine;
  rows(sql: string, values?: unknown[]): Promise<Array<Record<string, unknown>>>;
  /** Runs GraphQL as admin, or as `role` with the given session variables (`X-Svc-*` headers). */
  gql(query: string, variables?: Record<string, unknown>, session?: Record<string, string>): Promise<GraphQLBody>;
  /** Replaces the metadata after applying `edit` to the exported document. */
  editMetadata(edit: (doc: MetadataDoc) => void): Promise<void>;
  close(): Promise<void>;
}

export interface GraphQLBody {
  data?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  errors?: Array<{ message: string; extensions: { path: string; code: string; internal?: unknown } }>;
}

export interface MetadataDoc {
  version: number;
  sources: Array<{ name: string; tables: Array<Record<string, unknown> & { table: { schema: string; name: string } }> } & Record<string, unknown>>;
}

export async function startMutationFixture(prefix: string, config: Partial<ServerConfig> = {}): Promise<MutationFixture> {
  const db = await createTestDatabase(prefix, SCHEMA_SQL + EXTRA_SQL);
  const engine = await startTestEngine({ databaseUrl: db.url, ...config });
  const res = await metadata(engine, { type: 'bulk', args: [...TRACK_BULK.args, ...EXTRA_TRACKING] });
  if (res.status !== 200) throw new Error(`tracking failed: ${JSON.stringify(res.body)}`);
  return {
    db,
    engine,
    rows: async (sql, values) => (await db.sql(sql, values)).rows,
    gql: async (query, variables, session) => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(session ?? {})) headers[k] = v;
      return (await graphql<GraphQLBody>(engine, query, variables, headers)).body;
    },
    editMetadata: async (edit) => {
      const exported = await metadata<MetadataDoc>(engine, { type: 'export_metadata', args: {} });
      if (exported.status !== 200) throw new Error(`export failed: ${JSON.stringify(exported.body)}`);
      const doc = exported.body;
      edit(doc);
      const replaced = await metadata(engine, { type: 'replace_metadata', args: doc });
      if (replaced.status !== 200) throw new Error(`replace failed: ${JSON.stringify(replaced.body)}`);
    },
    close: async () => {
      await engine.close();
      await db.drop();
    },
  };
}

/** The table entry `name` (public schema) of the default source. */
export function tableOf(doc: MetadataDoc, name: string): Record<string, unknown> {
  const t = doc.sources.find((s) => s.name === 'default')?.tables.find((x) => x.table.name === name);
  if (!t) throw new Error(`table ${name} not in metadata`);
  return t;
}

/** Data of a successful response; fails loudly on errors. */
export function ok(body: GraphQLBody): any { // eslint-disable-line @typescript-eslint/no-explicit-any
  if (body.errors) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
  return body.data;
}

/** The single error of a failed response. */
export function failure(body: GraphQLBody): { message: string; code: string; path: string; internal?: unknown } {
  if (!body.errors || body.errors.length !== 1) throw new Error(`expected one error, got ${JSON.stringify(body)}`);
  const e = body.errors[0]!;
  return { message: e.message, code: e.extensions.code, path: e.extensions.path, internal: e.extensions.internal };
}
