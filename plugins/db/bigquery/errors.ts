/**
 * BigQuery API failures → the engine's codes. A query BigQuery refuses or fails is `unexpected`
 * (its message goes to `internal` only, as the reference keeps BigQuery's details from clients);
 * a server that cannot be reached or refuses the credentials is `connection-not-established`; a
 * job stopped by its time limit is `time-limit-exceeded`.
 */
import { EngineError, isEngineError, timeLimitExceeded } from '../../../core/sdk/index.js';

interface ApiError {
  code?: number | string;
  message?: string;
  errors?: Array<{ reason?: string; message?: string }>;
}

const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);

export function bigQueryEngineError(err: unknown, statement: string): EngineError {
  if (isEngineError(err)) return err;
  const e = (err ?? {}) as ApiError;
  const reasons = (e.errors ?? []).map((x) => x.reason).filter((r): r is string => r !== undefined);
  const internal = { statement, error: { message: e.message ?? String(err), code: e.code ?? null, reasons } };
  if ((typeof e.code === 'string' && NETWORK.has(e.code)) || e.code === 401 || e.code === 403 || reasons.includes('authError') || reasons.includes('accessDenied')) {
    return new EngineError('connection-not-established', 'could not query BigQuery: the service could not be reached or refused the credentials', { status: 500, internal });
  }
  if (reasons.includes('jobTimeout') || reasons.includes('timeout')) return timeLimitExceeded({ internal });
  return new EngineError('unexpected', 'BigQuery request failed', { status: 500, internal });
}
