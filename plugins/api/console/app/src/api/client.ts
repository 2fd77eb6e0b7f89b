/**
 * The console's only way to the engine: its public HTTP endpoints, same origin. The admin secret
 * is asked for once and kept in sessionStorage (gone when the tab closes, never in localStorage
 * or a cookie); the chosen role and session variables are kept there too and sent with GraphQL
 * requests as X-Svc-Role / X-Svc-* headers. Metadata and SQL requests always go as admin.
 */

export interface ApiErrorBody {
  path?: string;
  error?: string;
  code?: string;
  internal?: unknown;
}

/** An error answer of the engine, with the reference's `{path, error, code}` kept apart. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly path: string;
  readonly internal: unknown;
  constructor(status: number, body: ApiErrorBody | string) {
    const b: ApiErrorBody = typeof body === 'string' ? { error: body } : body;
    super(b.error ?? `HTTP ${status}`);
    this.status = status;
    this.code = b.code ?? 'unexpected';
    this.path = b.path ?? '$';
    this.internal = b.internal;
  }
}

export interface GraphQLResponse<T = Record<string, unknown>> {
  data?: T | null;
  errors?: { message: string; extensions?: { path?: string; code?: string; internal?: unknown } }[];
}

export interface MetadataOp {
  type: string;
  args: unknown;
  version?: number;
  source?: string;
  resource_version?: number;
}

const SECRET_KEY = 'svc-console.admin-secret';
const ROLE_KEY = 'svc-console.role';
const VARS_KEY = 'svc-console.session-variables';

/** Session variables as the user typed them: names without or with the x-svc- prefix. */
export type SessionVariables = Record<string, string>;

export class ConsoleClient {
  constructor(private readonly storage: Storage = window.sessionStorage) {}

  get adminSecret(): string | null {
    return this.storage.getItem(SECRET_KEY);
  }
  setAdminSecret(secret: string | null): void {
    if (secret === null) this.storage.removeItem(SECRET_KEY);
    else this.storage.setItem(SECRET_KEY, secret);
  }

  /** The role GraphQL requests run as; `admin` sends no X-Svc-Role. */
  get role(): string {
    return this.storage.getItem(ROLE_KEY) ?? 'admin';
  }
  setRole(role: string): void {
    this.storage.setItem(ROLE_KEY, role.trim() || 'admin');
  }

  get sessionVariables(): SessionVariables {
    try {
      const parsed: unknown = JSON.parse(this.storage.getItem(VARS_KEY) ?? '{}');
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as SessionVariables) : {};
    } catch {
      return {};
    }
  }
  setSessionVariables(vars: SessionVariables): void {
    this.storage.setItem(VARS_KEY, JSON.stringify(vars));
  }

  adminHeaders(): Record<string, string> {
    const secret = this.adminSecret;
    return secret ? { 'x-svc-admin-secret': secret } : {};
  }

  /** Headers of a GraphQL request as the chosen role, with its session variables. */
  roleHeaders(): Record<string, string> {
    const headers = this.adminHeaders();
    for (const [name, value] of Object.entries(this.sessionVariables)) {
      if (!name.trim()) continue;
      const lower = name.trim().toLowerCase();
      headers[lower.startsWith('x-svc-') ? lower : `x-svc-${lower}`] = value;
    }
    if (this.role !== 'admin') headers['x-svc-role'] = this.role;
    return headers;
  }

  private async post<T>(path: string, body: unknown, headers: Record<string, string>): Promise<T> {
    const res = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      /* a plain-text answer stays text */
    }
    if (!res.ok) throw new ApiError(res.status, (parsed ?? `HTTP ${res.status}`) as ApiErrorBody | string);
    return parsed as T;
  }

  metadata<T = unknown>(op: MetadataOp): Promise<T> {
    return this.post<T>('/v1/metadata', op, this.adminHeaders());
  }

  /** Several operations, all or nothing. */
  bulk<T = unknown>(ops: MetadataOp[]): Promise<T> {
    return this.metadata<T>({ type: 'bulk', args: ops });
  }

  /** `/v1/query`: the legacy path, where the scheduled-trigger operations live. */
  legacyQuery<T = unknown>(op: MetadataOp): Promise<T> {
    return this.post<T>('/v1/query', op, this.adminHeaders());
  }

  runSql(args: RunSqlArgs): Promise<RunSqlResult> {
    return this.post<RunSqlResult>('/v2/query', { type: 'run_sql', args }, this.adminHeaders());
  }

  /** A GraphQL request as admin (data pages) or as the chosen role (`asRole`). */
  async graphql<T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    options: { asRole?: boolean } = {},
  ): Promise<GraphQLResponse<T>> {
    return this.post<GraphQLResponse<T>>('/v1/graphql', { query, variables }, options.asRole ? this.roleHeaders() : this.adminHeaders());
  }

  explain(query: string, variables: Record<string, unknown> | undefined, user: Record<string, string>): Promise<ExplainedField[]> {
    return this.post<ExplainedField[]>('/v1/graphql/explain', { query: { query, variables }, user }, this.adminHeaders());
  }

  /** Whether the stored secret (or none) is accepted as admin. */
  async checkAdmin(): Promise<'ok' | 'denied'> {
    try {
      await this.metadata({ type: 'get_inconsistent_metadata', args: {} });
      return 'ok';
    } catch (e) {
      if (e instanceof ApiError && (e.status === 401 || e.status === 400 || e.status === 403) && e.code === 'access-denied') return 'denied';
      if (e instanceof ApiError && e.status === 401) return 'denied';
      throw e;
    }
  }
}

export interface RunSqlArgs {
  sql: string;
  source?: string;
  cascade?: boolean;
  read_only?: boolean;
  check_metadata_consistency?: boolean;
}

export interface RunSqlResult {
  result_type: 'CommandOk' | 'TuplesOk';
  result?: string[][] | null;
}

export interface ExplainedField {
  field: string;
  sql: string | null;
  plan: string[] | null;
}

/** A graphql response's first error as an ApiError, so pages show every failure one way. */
export function graphqlData<T>(response: GraphQLResponse<T>): T {
  const first = response.errors?.[0];
  if (first) {
    throw new ApiError(200, { error: first.message, code: first.extensions?.code, path: first.extensions?.path, internal: first.extensions?.internal });
  }
  return (response.data ?? {}) as T;
}

/** Rows of a TuplesOk run_sql result as objects keyed by the header row. */
export function sqlRows(result: RunSqlResult): Record<string, string | null>[] {
  const [header, ...rows] = result.result ?? [];
  if (!header) return [];
  return rows.map((row) => Object.fromEntries(header.map((h, i) => [h, row[i] ?? null])));
}
