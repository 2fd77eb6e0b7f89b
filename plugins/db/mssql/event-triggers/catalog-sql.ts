/**
 * The event log in a SQL Server source's `svc_catalog` schema, laid out as the reference engine
 * keeps it for SQL Server (`hdb_catalog.event_log`, `event_invocation_logs`,
 * `hdb_event_log_cleanups`): ids are UNIQUEIDENTIFIERs, times DATETIMEOFFSET(7), payloads
 * NVARCHAR(MAX) JSON. Every statement takes its values as parameters; lists (trigger names, event
 * ids, outcomes) travel as ONE JSON parameter read with OPENJSON, so a batch never nears SQL
 * Server's 2,100 parameters.
 */

/** Held (sp_getapplock, transaction-owned) while creating the catalog or changing capture triggers. */
export const CATALOG_LOCK_SQL = `EXEC sp_getapplock @Resource = N'svc_event_catalog', @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 60000`;

/** Idempotent: each object is created only when missing (CREATE SCHEMA must be alone in its batch, hence EXEC). */
export const CATALOG_STATEMENTS: readonly string[] = [
  `IF SCHEMA_ID(N'svc_catalog') IS NULL EXEC(N'CREATE SCHEMA [svc_catalog]')`,
  `IF OBJECT_ID(N'svc_catalog.event_log', N'U') IS NULL CREATE TABLE svc_catalog.event_log (
  id UNIQUEIDENTIFIER NOT NULL DEFAULT NEWID() PRIMARY KEY,
  schema_name NVARCHAR(128) NOT NULL,
  table_name NVARCHAR(128) NOT NULL,
  trigger_name NVARCHAR(850) NOT NULL,
  payload NVARCHAR(MAX) NOT NULL,
  delivered BIT NOT NULL DEFAULT 0,
  error BIT NOT NULL DEFAULT 0,
  tries INT NOT NULL DEFAULT 0,
  created_at DATETIMEOFFSET(7) NOT NULL DEFAULT SYSDATETIMEOFFSET(),
  locked DATETIMEOFFSET(7) NULL,
  next_retry_at DATETIMEOFFSET(7) NULL,
  archived BIT NOT NULL DEFAULT 0)`,
  // The claim's predicate: only undelivered events are in this index, so claiming stays cheap however long the log.
  `IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'event_log_fetch_events' AND object_id = OBJECT_ID(N'svc_catalog.event_log'))
  CREATE INDEX event_log_fetch_events ON svc_catalog.event_log (locked, next_retry_at, created_at) WHERE delivered = 0 AND error = 0 AND archived = 0`,
  `IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'event_log_trigger_name' AND object_id = OBJECT_ID(N'svc_catalog.event_log'))
  CREATE INDEX event_log_trigger_name ON svc_catalog.event_log (trigger_name, created_at)`,
  `IF OBJECT_ID(N'svc_catalog.event_invocation_logs', N'U') IS NULL CREATE TABLE svc_catalog.event_invocation_logs (
  id UNIQUEIDENTIFIER NOT NULL DEFAULT NEWID() PRIMARY KEY,
  trigger_name NVARCHAR(850) NULL,
  event_id UNIQUEIDENTIFIER NULL,
  status INT NULL,
  request NVARCHAR(MAX) NULL,
  response NVARCHAR(MAX) NULL,
  created_at DATETIMEOFFSET(7) NOT NULL DEFAULT SYSDATETIMEOFFSET())`,
  `IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'event_invocation_logs_event_id' AND object_id = OBJECT_ID(N'svc_catalog.event_invocation_logs'))
  CREATE INDEX event_invocation_logs_event_id ON svc_catalog.event_invocation_logs (event_id)`,
  `IF OBJECT_ID(N'svc_catalog.event_log_cleanups', N'U') IS NULL CREATE TABLE svc_catalog.event_log_cleanups (
  id UNIQUEIDENTIFIER NOT NULL DEFAULT NEWID() PRIMARY KEY,
  trigger_name NVARCHAR(850) NOT NULL,
  scheduled_at DATETIMEOFFSET(7) NOT NULL,
  deleted_event_logs INT NULL,
  deleted_event_invocation_logs INT NULL,
  status NVARCHAR(16) NOT NULL CHECK (status IN (N'scheduled', N'paused', N'completed', N'dead')),
  CONSTRAINT event_log_cleanups_unique UNIQUE (trigger_name, scheduled_at))`,
];

/**
 * @p0 how many, @p1 the lock timeout in seconds, @p2 the trigger names (a JSON array). READPAST
 * skips rows another engine has locked, UPDLOCK/ROWLOCK keep two claimers off the same row; the
 * claimed rows come back through OUTPUT. `created_at` as the reference sends it: UTC, no zone.
 */
export const CLAIM_SQL = `UPDATE TOP (@p0) l SET l.locked = SYSDATETIMEOFFSET()
OUTPUT CONVERT(NVARCHAR(36), INSERTED.id) AS id, INSERTED.schema_name, INSERTED.table_name, INSERTED.trigger_name, INSERTED.payload, INSERTED.tries,
  CONVERT(NVARCHAR(30), CAST(SWITCHOFFSET(INSERTED.created_at, '+00:00') AS DATETIME2(6)), 126) AS created_at
FROM svc_catalog.event_log AS l WITH (READPAST, UPDLOCK, ROWLOCK)
WHERE l.delivered = 0 AND l.error = 0 AND l.archived = 0
  AND (l.locked IS NULL OR l.locked < DATEADD(SECOND, -@p1, SYSDATETIMEOFFSET()))
  AND (l.next_retry_at IS NULL OR l.next_retry_at <= SYSDATETIMEOFFSET())
  AND l.trigger_name IN (SELECT [value] FROM OPENJSON(@p2))`;

/** @p0: `[{t, e, s, q, r}]` (trigger, event id, status, request JSON, response JSON). */
export const RECORD_INVOCATIONS_SQL = `INSERT INTO svc_catalog.event_invocation_logs (trigger_name, event_id, status, request, response)
SELECT v.t, TRY_CONVERT(UNIQUEIDENTIFIER, v.e), v.s, v.q, v.r
FROM OPENJSON(@p0) WITH (t NVARCHAR(850) '$.t', e NVARCHAR(36) '$.e', s INT '$.s', q NVARCHAR(MAX) '$.q', r NVARCHAR(MAX) '$.r') AS v`;

/**
 * @p0: `[{e, d, x, w}]` (event id, delivered, error, retry delay in seconds or null). The delay is
 * added as seconds, then milliseconds: DATEADD takes an INT, and a delay over 24 days in
 * milliseconds would overflow it.
 */
export const RECORD_STATES_SQL = `UPDATE e SET
  e.tries = e.tries + 1,
  e.delivered = v.d,
  e.error = v.x,
  e.locked = NULL,
  e.next_retry_at = CASE WHEN v.w IS NULL THEN NULL
    ELSE DATEADD(MILLISECOND, CAST((v.w - FLOOR(v.w)) * 1000 AS INT), DATEADD(SECOND, CAST(FLOOR(v.w) AS INT), SYSDATETIMEOFFSET())) END
FROM svc_catalog.event_log AS e
JOIN OPENJSON(@p0) WITH (e NVARCHAR(36) '$.e', d BIT '$.d', x BIT '$.x', w FLOAT '$.w') AS v ON e.id = TRY_CONVERT(UNIQUEIDENTIFIER, v.e)`;

/** @p0: the event ids (a JSON array). */
export const RELEASE_SQL = `UPDATE svc_catalog.event_log SET locked = NULL
WHERE id IN (SELECT TRY_CONVERT(UNIQUEIDENTIFIER, [value]) FROM OPENJSON(@p0)) AND delivered = 0 AND error = 0`;

/** @p0 schema, @p1 table, @p2 trigger, @p3 the payload JSON. */
export const INSERT_MANUAL_SQL = `INSERT INTO svc_catalog.event_log (schema_name, table_name, trigger_name, payload)
OUTPUT CONVERT(NVARCHAR(36), INSERTED.id) AS id
VALUES (@p0, @p1, @p2, @p3)`;

/** @p0 the event id as given: an id that is not a GUID finds nothing rather than failing the conversion. */
export const REDELIVER_CHECK_SQL = `SELECT CAST(CASE WHEN locked IS NOT NULL AND delivered = 0 AND error = 0 THEN 1 ELSE 0 END AS BIT) AS busy
FROM svc_catalog.event_log WITH (UPDLOCK, ROWLOCK) WHERE id = TRY_CONVERT(UNIQUEIDENTIFIER, @p0)`;

export const REDELIVER_SQL = `UPDATE svc_catalog.event_log SET delivered = 0, error = 0, tries = 0, locked = NULL, next_retry_at = NULL, archived = 0
WHERE id = TRY_CONVERT(UNIQUEIDENTIFIER, @p0)`;

export const ARCHIVE_SQL = `UPDATE svc_catalog.event_log SET archived = 1 WHERE trigger_name = @p0 AND archived = 0`;

/**
 * One cleanup batch: @p0 trigger, @p1 hours, @p2 batch size, @p3 whether invocation logs go too.
 * Answers how many events and invocation logs were deleted.
 */
export const CLEANUP_BATCH_SQL = `DECLARE @svc_deleted TABLE (id UNIQUEIDENTIFIER);
DECLARE @svc_invocations INT = 0;
DELETE FROM svc_catalog.event_log OUTPUT DELETED.id INTO @svc_deleted
WHERE id IN (SELECT TOP (@p2) id FROM svc_catalog.event_log
  WHERE trigger_name = @p0 AND (delivered = 1 OR error = 1) AND locked IS NULL AND created_at < DATEADD(HOUR, -@p1, SYSDATETIMEOFFSET()));
IF @p3 = 1
BEGIN
  DELETE FROM svc_catalog.event_invocation_logs WHERE event_id IN (SELECT id FROM @svc_deleted);
  SET @svc_invocations = @@ROWCOUNT;
END;
SELECT (SELECT COUNT(*) FROM @svc_deleted) AS events, @svc_invocations AS invocations`;

/** @p0 trigger, @p1 the scheduled time (ISO 8601, UTC). A second engine's claim finds the row and inserts nothing. */
export const CLAIM_CLEANUP_SQL = `INSERT INTO svc_catalog.event_log_cleanups (trigger_name, scheduled_at, status)
SELECT @p0, CONVERT(DATETIMEOFFSET(7), @p1, 127), N'scheduled'
WHERE NOT EXISTS (SELECT 1 FROM svc_catalog.event_log_cleanups WITH (UPDLOCK, HOLDLOCK)
  WHERE trigger_name = @p0 AND scheduled_at = CONVERT(DATETIMEOFFSET(7), @p1, 127));
SELECT @@ROWCOUNT AS inserted`;

/** @p0 trigger, @p1 scheduled time, @p2 status, @p3 / @p4 the counts. */
export const FINISH_CLEANUP_SQL = `UPDATE svc_catalog.event_log_cleanups SET status = @p2, deleted_event_logs = @p3, deleted_event_invocation_logs = @p4
WHERE trigger_name = @p0 AND scheduled_at = CONVERT(DATETIMEOFFSET(7), @p1, 127)`;

/** The capture triggers present in the database, with the definition hash their body carries. */
export const EXISTING_CAPTURES_SQL = `SELECT tr.name AS name, s.name AS [schema], tb.name AS [table], OBJECT_DEFINITION(tr.object_id) AS definition
FROM sys.triggers AS tr
JOIN sys.tables AS tb ON tr.parent_id = tb.object_id
JOIN sys.schemas AS s ON tb.schema_id = s.schema_id
WHERE tr.name LIKE N'notify\\_svc\\_%' ESCAPE N'\\'`;
