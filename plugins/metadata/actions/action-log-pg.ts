/**
 * Asynchronous action requests in the metadata database's `svc_catalog.svc_action_log`
 * (PostgreSQL), as the reference keeps `hdb_action_log`. All the SQL of async actions is here.
 * Claims lock rows with FOR UPDATE SKIP LOCKED and mark them processing in the same statement.
 * Reading a result compares the stored session variables with the caller's (jsonb equality).
 */
import { parseLossless, stringifyLossless, type Json } from '../../../core/sdk/index.js';
import { CatalogTableStore, type CatalogDatabase } from '../../db/postgres/catalog-table-store.js';
import type { ActionLogStore, ActionResult, ClaimedAction, NewActionRequest } from './action-log.js';

/** Arbitrary constant naming the lock that serialises creating the table. */
const CREATE_LOCK = 720_011_617;

const CREATE = `
CREATE TABLE IF NOT EXISTS svc_catalog.svc_action_log (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  action_name text NOT NULL,
  input_payload jsonb NOT NULL,
  request_headers jsonb NOT NULL,
  session_variables jsonb NOT NULL,
  response_payload jsonb,
  errors jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  response_received_at timestamptz,
  locked_at timestamptz,
  status text NOT NULL DEFAULT 'created' CHECK (status IN ('created', 'processing', 'completed', 'error'))
);
CREATE INDEX IF NOT EXISTS svc_action_log_pending ON svc_catalog.svc_action_log (status, created_at) WHERE status IN ('created', 'processing');
`;

const CLAIM = `
WITH due AS (
  SELECT id FROM svc_catalog.svc_action_log
  WHERE status = 'created' OR (status = 'processing' AND locked_at < now() - make_interval(secs => $2))
  ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED)
UPDATE svc_catalog.svc_action_log a SET status = 'processing', locked_at = now() FROM due WHERE a.id = due.id
RETURNING a.id::text, a.action_name, a.input_payload, a.session_variables, a.request_headers`;

export class PgActionLogStore extends CatalogTableStore implements ActionLogStore {
  constructor(database: CatalogDatabase) {
    super(database, { ddl: CREATE, createLock: CREATE_LOCK, applicationName: 'svc-graphql-engine-async-actions' });
  }

  async create(r: NewActionRequest): Promise<{ id: string; createdAt: string }> {
    const { rows } = await this.query<{ id: string; created_at: string }>(
      `INSERT INTO svc_catalog.svc_action_log (action_name, input_payload, session_variables, request_headers)
       VALUES ($1, $2, $3, $4) RETURNING id::text, to_json(created_at)#>>'{}' AS created_at`,
      [r.actionName, JSON.stringify(r.input), JSON.stringify(r.sessionVariables), JSON.stringify(r.requestHeaders)],
    );
    return { id: rows[0]!.id, createdAt: rows[0]!.created_at };
  }

  async claim(limit: number, lockTimeoutSeconds: number): Promise<ClaimedAction[]> {
    const { rows } = await this.query<{
      id: string;
      action_name: string;
      input_payload: Json;
      session_variables: Record<string, string>;
      request_headers: Array<{ name: string; value: string }>;
    }>(CLAIM, [limit, lockTimeoutSeconds]);
    return rows.map((r) => ({
      id: r.id,
      actionName: r.action_name,
      input: r.input_payload,
      sessionVariables: r.session_variables,
      requestHeaders: r.request_headers,
    }));
  }

  async complete(id: string, output: Json): Promise<void> {
    await this.query(
      `UPDATE svc_catalog.svc_action_log SET status = 'completed', response_payload = $2, response_received_at = now(), locked_at = NULL WHERE id = $1`,
      [id, stringifyLossless(output)],
    );
  }

  async fail(id: string, errors: Json): Promise<void> {
    await this.query(
      `UPDATE svc_catalog.svc_action_log SET status = 'error', errors = $2, response_received_at = now(), locked_at = NULL WHERE id = $1`,
      [id, JSON.stringify(errors)],
    );
  }

  async release(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.query(`UPDATE svc_catalog.svc_action_log SET status = 'created', locked_at = NULL WHERE id = ANY($1::uuid[]) AND status = 'processing'`, [ids]);
  }

  async read(actionName: string, id: string, sessionVariables: Readonly<Record<string, string>>, anySession: boolean): Promise<ActionResult | null> {
    // A malformed id is simply not found (the argument is a uuid, but custom scalars pass text through).
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
    // The output as text: its big integers (bigint ids) must survive the read (lossless-json.ts).
    const { rows } = await this.query<{ id: string; created_at: string; status: ActionResult['status']; response_payload: string | null; errors: Json }>(
      `SELECT id::text, to_json(created_at)#>>'{}' AS created_at, status, response_payload::text AS response_payload, errors FROM svc_catalog.svc_action_log
       WHERE id = $1 AND action_name = $2 AND ($4::boolean OR session_variables = $3::jsonb)`,
      [id, actionName, JSON.stringify(sessionVariables), anySession],
    );
    const r = rows[0];
    return r ? { id: r.id, createdAt: r.created_at, status: r.status, output: r.response_payload === null ? null : (parseLossless(r.response_payload) as Json), errors: r.errors } : null;
  }

  async clear(actionName: string): Promise<void> {
    await this.query(`DELETE FROM svc_catalog.svc_action_log WHERE action_name = $1`, [actionName]);
  }

}
