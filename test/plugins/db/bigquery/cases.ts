/**
 * The conformance suite's queries (test/conformance/suite.ts), each with the exact Standard SQL
 * and parameters the BigQuery kind must send for it. Root fields are written `ROOT_<table>`.
 */
export interface SqlCase {
  query: string;
  variables?: Record<string, unknown>;
  headers?: Record<string, string>;
  sql: string;
  params: Record<string, { type: string; value: unknown }>;
}

const USER = { 'x-svc-role': 'user', 'x-svc-user-id': '1' };

export const CASES: SqlCase[] = [];
export const ROLES = { USER };
