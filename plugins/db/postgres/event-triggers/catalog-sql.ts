/**
 * The event log in a source database's `svc_catalog` schema, as the reference engine keeps it in
 * the source (`hdb_catalog.event_log`): events, invocation logs, scheduled cleanup runs and the
 * `insert_event_log` function every capture trigger calls. Created idempotently under an
 * advisory lock, so several engines may prepare one database at once.
 */

/** Held while creating the catalog or changing capture triggers (one engine at a time). */
export const EVENT_CATALOG_LOCK = 7_301_914_014;

export const CATALOG_SQL = `
CREATE SCHEMA IF NOT EXISTS svc_catalog;

CREATE TABLE IF NOT EXISTS svc_catalog.event_log (
  id text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  schema_name text NOT NULL,
  table_name text NOT NULL,
  trigger_name text NOT NULL,
  payload jsonb NOT NULL,
  delivered boolean NOT NULL DEFAULT false,
  error boolean NOT NULL DEFAULT false,
  tries integer NOT NULL DEFAULT 0,
  created_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'utc'),
  locked timestamptz,
  next_retry_at timestamptz,
  archived boolean NOT NULL DEFAULT false
);

-- The claim query's predicate and order, so fetching stays an index scan however large the log.
CREATE INDEX IF NOT EXISTS event_log_fetch_events ON svc_catalog.event_log
  (locked NULLS FIRST, next_retry_at NULLS FIRST, created_at)
  WHERE NOT delivered AND NOT error AND NOT archived;
CREATE INDEX IF NOT EXISTS event_log_trigger_name ON svc_catalog.event_log (trigger_name, created_at);

CREATE TABLE IF NOT EXISTS svc_catalog.event_invocation_logs (
  id text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  trigger_name text,
  event_id text,
  status integer,
  request json,
  response json,
  created_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'utc')
);
CREATE INDEX IF NOT EXISTS event_invocation_logs_event_id ON svc_catalog.event_invocation_logs (event_id);

CREATE TABLE IF NOT EXISTS svc_catalog.event_log_cleanups (
  id text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  trigger_name text NOT NULL,
  scheduled_at timestamptz NOT NULL,
  deleted_event_logs integer,
  deleted_event_invocation_logs integer,
  status text NOT NULL CHECK (status IN ('scheduled', 'paused', 'completed', 'dead')),
  UNIQUE (trigger_name, scheduled_at)
);

CREATE OR REPLACE FUNCTION svc_catalog.insert_event_log(schema_name text, table_name text, trigger_name text, op text, row_data json)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  id text;
  session_variables json;
  trace_context json;
BEGIN
  id := gen_random_uuid()::text;
  session_variables := NULLIF(current_setting('svc.user', true), '')::json;
  trace_context := NULLIF(current_setting('svc.tracecontext', true), '')::json;
  INSERT INTO svc_catalog.event_log (id, schema_name, table_name, trigger_name, payload)
  VALUES (id, schema_name, table_name, trigger_name,
          jsonb_build_object('op', op, 'data', row_data, 'session_variables', session_variables, 'trace_context', trace_context));
  RETURN id;
END;
$$;
`;

export const CLAIM_SQL = `
UPDATE svc_catalog.event_log SET locked = now()
WHERE id IN (
  SELECT l.id FROM svc_catalog.event_log l
  WHERE NOT l.delivered AND NOT l.error AND NOT l.archived
    AND (l.locked IS NULL OR l.locked < now() - make_interval(secs => $3))
    AND (l.next_retry_at IS NULL OR l.next_retry_at <= now())
    AND l.trigger_name = ANY($2::text[])
  ORDER BY l.locked NULLS FIRST, l.next_retry_at NULLS FIRST, l.created_at
  LIMIT $1
  FOR UPDATE SKIP LOCKED)
RETURNING id, schema_name, table_name, trigger_name, payload::text AS payload, tries,
  replace(created_at::text, ' ', 'T') AS created_at`;

export const RECORD_INVOCATIONS_SQL = `
INSERT INTO svc_catalog.event_invocation_logs (trigger_name, event_id, status, request, response)
SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::json[], $5::json[])`;

export const RECORD_STATES_SQL = `
UPDATE svc_catalog.event_log e SET
  tries = e.tries + 1,
  delivered = v.delivered,
  error = v.error,
  locked = NULL,
  next_retry_at = CASE WHEN v.delay IS NULL THEN NULL ELSE now() + make_interval(secs => v.delay) END
FROM unnest($1::text[], $2::boolean[], $3::boolean[], $4::float8[]) AS v(id, delivered, error, delay)
WHERE e.id = v.id`;

export const RELEASE_SQL = `
UPDATE svc_catalog.event_log SET locked = NULL
WHERE id = ANY($1::text[]) AND NOT delivered AND NOT error`;

export const INSERT_MANUAL_SQL = `SELECT svc_catalog.insert_event_log($1, $2, $3, 'MANUAL', $4::json) AS id`;

export const ARCHIVE_SQL = `
UPDATE svc_catalog.event_log SET archived = true WHERE trigger_name = $1 AND NOT archived`;
