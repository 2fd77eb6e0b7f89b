/**
 * A local stand-in for the BigQuery REST API (v2), for the real @google-cloud/bigquery client
 * pointed at it with `apiEndpoint`. It answers the calls the client makes for a query —
 * jobs.query (`POST /projects/{p}/queries`), jobs.insert (`POST /projects/{p}/jobs`),
 * getQueryResults (`GET /projects/{p}/queries/{job}`) and jobs.get — and records each statement
 * with its parameters as the client sent them. It cannot run Standard SQL: the test's `answer`
 * function says what a statement returns (a schema and rows in the API's `{f: [{v}]}` form), or
 * the error the API would give. The service-account key is a real RSA key pair generated here:
 * the client signs its bearer token with the private key, and the stand-in checks that signature
 * with the public key, so the auth path of the configuration is exercised too.
 */
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import type { RawRow, SchemaField } from '../../../../plugins/db/bigquery/client.js';
import { startWebhookSink, type SinkRequest, type WebhookSink } from '../../../helpers/webhook-sink.js';

export interface RecordedQuery {
  query: string;
  /** Parameter name → `{type, value}` as the client encoded them (`value` null for NULL, an array for ARRAY). */
  params: Record<string, { type: string; value: unknown }>;
  dryRun: boolean;
  endpoint: 'jobs.query' | 'jobs.insert';
  /** The job's time limit the client asked for (jobs.insert), in ms. */
  jobTimeoutMs?: string;
}

export type StandInAnswer =
  | { schema: SchemaField[]; rows: RawRow[] }
  | { error: { status: number; reason: string; message: string } }
  /** Never answer (a job that runs past the request's time limit). */
  | { hang: true };

export interface BigQueryStandIn {
  apiEndpoint: string;
  serviceAccount: { client_email: string; private_key: string; project_id: string };
  queries: RecordedQuery[];
  /** Requests whose bearer token did not verify against the key (should stay empty). */
  unauthenticated: SinkRequest[];
  answer(fn: (q: RecordedQuery) => StandInAnswer): void;
  /** Answers jobs.query with `jobComplete: false` this many times first (the client then polls). */
  pendingPolls: number;
  close(): Promise<void>;
}

const PROJECT = 'standin-project';

function decodeParam(p: { parameterType: { type: string; arrayType?: { type: string } }; parameterValue?: { value?: unknown; arrayValues?: Array<{ value?: unknown }> } }): { type: string; value: unknown } {
  if (p.parameterType.type === 'ARRAY') {
    const values = p.parameterValue?.arrayValues;
    return { type: `ARRAY<${p.parameterType.arrayType?.type}>`, value: values === undefined ? null : values.map((v) => v.value ?? null) };
  }
  return { type: p.parameterType.type, value: p.parameterValue?.value ?? null };
}

function verifiedToken(req: SinkRequest, publicKeyPem: string): boolean {
  const auth = req.headers['authorization'];
  if (typeof auth !== 'string' || !auth.startsWith('Bearer ')) return false;
  const [header, payload, signature] = auth.slice(7).split('.');
  if (!header || !payload || !signature) return false;
  return verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), createPublicKey(publicKeyPem), Buffer.from(signature, 'base64url'));
}

export async function startBigQueryStandIn(): Promise<BigQueryStandIn> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const sink: WebhookSink = await startWebhookSink();
  let answer: (q: RecordedQuery) => StandInAnswer = () => ({ schema: [], rows: [] });
  const jobs = new Map<string, StandInAnswer>();
  let jobCount = 0;
  const standIn: BigQueryStandIn = {
    apiEndpoint: sink.url,
    serviceAccount: { client_email: 'engine@standin-project.iam.gserviceaccount.com', private_key: privatePem, project_id: PROJECT },
    queries: [],
    unauthenticated: [],
    answer: (fn) => (answer = fn),
    pendingPolls: 0,
    close: () => sink.close(),
  };
  const json = (status: number, body: unknown) => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const results = (jobId: string, a: StandInAnswer) => {
    if ('hang' in a) return { hang: true };
    if ('error' in a) return json(a.error.status, { error: { code: a.error.status, message: a.error.message, errors: [{ reason: a.error.reason, message: a.error.message }] } });
    return json(200, {
      kind: 'bigquery#getQueryResultsResponse',
      jobReference: { projectId: PROJECT, jobId, location: 'US' },
      jobComplete: true,
      schema: { fields: a.schema },
      rows: a.rows,
      totalRows: String(a.rows.length),
    });
  };
  sink.respond((req) => {
    if (!verifiedToken(req, publicPem)) {
      standIn.unauthenticated.push(req);
      return json(401, { error: { code: 401, message: 'Request had invalid authentication credentials.', errors: [{ reason: 'authError' }] } });
    }
    const path = req.path.split('?')[0]!.replace(/^\/bigquery\/v2/, '');
    const queryResults = /^\/projects\/[^/]+\/queries\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && queryResults) {
      const a = jobs.get(decodeURIComponent(queryResults[1]!));
      return a === undefined ? json(404, { error: { code: 404, message: 'Not found: Job', errors: [{ reason: 'notFound' }] } }) : results(queryResults[1]!, a);
    }
    const getJob = /^\/projects\/[^/]+\/jobs\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && getJob) {
      return json(200, { kind: 'bigquery#job', jobReference: { projectId: PROJECT, jobId: getJob[1], location: 'US' }, status: { state: 'DONE' } });
    }
    const body = req.json as Record<string, unknown>;
    if (req.method === 'POST' && /^\/projects\/[^/]+\/queries$/.test(path)) {
      const q: RecordedQuery = {
        query: String(body['query']),
        params: Object.fromEntries(((body['queryParameters'] as Array<{ name: string } & Parameters<typeof decodeParam>[0]>) ?? []).map((p) => [p.name, decodeParam(p)])),
        dryRun: false,
        endpoint: 'jobs.query',
      };
      standIn.queries.push(q);
      const jobId = `job_${++jobCount}`;
      const a = answer(q);
      jobs.set(jobId, a);
      if (standIn.pendingPolls > 0) {
        standIn.pendingPolls--;
        return json(200, { kind: 'bigquery#queryResponse', jobReference: { projectId: PROJECT, jobId, location: 'US' }, jobComplete: false });
      }
      return results(jobId, a);
    }
    if (req.method === 'POST' && /^\/projects\/[^/]+\/jobs$/.test(path)) {
      const config = (body['configuration'] as { query: Record<string, unknown>; dryRun?: boolean; jobTimeoutMs?: string }) ?? { query: {} };
      const q: RecordedQuery = {
        query: String(config.query['query']),
        params: Object.fromEntries(((config.query['queryParameters'] as Array<{ name: string } & Parameters<typeof decodeParam>[0]>) ?? []).map((p) => [p.name, decodeParam(p)])),
        dryRun: config.dryRun === true,
        endpoint: 'jobs.insert',
        ...(config.jobTimeoutMs !== undefined ? { jobTimeoutMs: String(config.jobTimeoutMs) } : {}),
      };
      standIn.queries.push(q);
      const jobId = (body['jobReference'] as { jobId?: string } | undefined)?.jobId ?? `job_${++jobCount}`;
      const a = answer(q);
      if ('error' in a || 'hang' in a) return results(jobId, a);
      jobs.set(jobId, a);
      const statistics = q.dryRun
        ? { totalBytesProcessed: '1024', query: { totalBytesProcessed: '1024', statementType: 'SELECT', referencedTables: [] } }
        : {};
      return json(200, { kind: 'bigquery#job', jobReference: { projectId: PROJECT, jobId, location: 'US' }, configuration: body['configuration'], status: { state: 'DONE' }, statistics });
    }
    return json(404, { error: { code: 404, message: `stand-in: no route for ${req.method} ${path}`, errors: [{ reason: 'notFound' }] } });
  });
  return standIn;
}
