/**
 * Every error the engine reports to a client is an EngineError: an HTTP status, a code from the
 * reference engine's list (JSON spelling), a JSON path into the request and, for admins only,
 * internal detail. Errors that stop the engine from booting are BootErrors with an `E_*` code.
 */

/** Error codes as clients see them (the reference engine's `code` values). */
export type ErrorCode =
  | 'access-denied'
  | 'already-exists'
  | 'already-tracked'
  | 'already-untracked'
  | 'bad-request'
  | 'busy'
  | 'concurrent-update'
  | 'connection-not-established'
  | 'coercion-error'
  | 'conflict'
  | 'constraint-error'
  | 'constraint-violation'
  | 'cyclic-dependency'
  | 'data-exception'
  | 'dependency-error'
  | 'invalid-configuration'
  | 'invalid-headers'
  | 'invalid-json'
  | 'invalid-params'
  | 'invalid-jwt'
  | 'jwt-invalid-claims'
  | 'jwt-missing-role-claims'
  | 'method-not-allowed'
  | 'not-exists'
  | 'not-found'
  | 'not-supported'
  | 'parse-failed'
  | 'permission-denied'
  | 'permission-error'
  // The reference engine's codes for database failures (the postgres kind raises them).
  | 'postgres-error'
  | 'postgres-max-connections-error'
  | 'remote-schema-conflicts'
  | 'remote-schema-error'
  | 'start-failed'
  | 'unexpected'
  | 'unexpected-payload'
  | 'validation-failed'
  | 'template-resolution-failed'
  | 'timeout'
  // --pg-statement-timeout: the database did not answer a statement in time (engine's own code).
  | 'statement-timeout'
  // API limits: the reference engine does not publish the codes of its (closed-source) enforcers.
  | 'depth-limit-exceeded'
  | 'node-limit-exceeded'
  | 'batch-limit-exceeded'
  | 'time-limit-exceeded'
  | 'rate-limit-exceeded';

export interface EngineErrorInit {
  status?: number;
  path?: string;
  internal?: unknown;
  cause?: unknown;
  /**
   * GraphQL `extensions` to send verbatim instead of `{path, code}` (an action handler's own
   * 4xx `extensions`, whose code may be any string).
   */
  extensions?: Record<string, unknown>;
  /**
   * Errors another GraphQL server answered with (a remote schema), passed to the client as they
   * came: a GraphQL response is then `{"data":null,"errors":<these>}`.
   */
  graphqlErrors?: readonly unknown[];
  /**
   * The error ended an operation that had started running (an action's call): a GraphQL
   * response then carries `"data":null` beside the errors, as the reference answers them.
   */
  nullData?: boolean;
}

/**
 * Marks engine errors across module copies: a plugin loaded from its own path (or bundling its own
 * copy of core) still throws errors the server recognises, which `instanceof` alone would miss.
 */
const ENGINE_ERROR = Symbol.for('svc-graphql-engine.EngineError');
const BOOT_ERROR = Symbol.for('svc-graphql-engine.BootError');

export class EngineError extends Error {
  readonly [ENGINE_ERROR] = true;
  readonly code: ErrorCode;
  readonly status: number;
  path: string;
  readonly internal: unknown;
  readonly extensions: Record<string, unknown> | undefined;
  readonly graphqlErrors: readonly unknown[] | undefined;
  readonly nullData: boolean;

  constructor(code: ErrorCode, message: string, init: EngineErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'EngineError';
    this.code = code;
    this.status = init.status ?? defaultStatus(code);
    this.path = init.path ?? '$';
    this.internal = init.internal;
    this.extensions = init.extensions;
    this.graphqlErrors = init.graphqlErrors;
    this.nullData = init.nullData ?? false;
  }

  /** A copy of this error whose path is prefixed, for errors raised deep inside a bulk or args. */
  atPath(path: string): EngineError {
    return new EngineError(this.code, this.message, {
      status: this.status,
      path,
      internal: this.internal,
      cause: this.cause,
      ...(this.extensions ? { extensions: this.extensions } : {}),
      ...(this.graphqlErrors ? { graphqlErrors: this.graphqlErrors } : {}),
      ...(this.nullData ? { nullData: true } : {}),
    });
  }
}

function defaultStatus(code: ErrorCode): number {
  switch (code) {
    case 'access-denied':
    case 'invalid-jwt':
    case 'jwt-invalid-claims':
    case 'jwt-missing-role-claims':
    case 'invalid-headers':
      return 400;
    case 'conflict':
      return 409;
    case 'method-not-allowed':
      return 405;
    case 'rate-limit-exceeded':
      return 429;
    case 'not-found':
      return 404;
    case 'unexpected':
      return 500;
    default:
      return 400;
  }
}

export const isEngineError = (e: unknown): e is EngineError =>
  typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[ENGINE_ERROR] === true;

/** Shorthands for the errors raised most often, so messages stay consistent. */
export const errors = {
  notExists: (message: string, path = '$.args') => new EngineError('not-exists', message, { path }),
  alreadyExists: (message: string, path = '$.args') => new EngineError('already-exists', message, { path }),
  parseFailed: (message: string, path = '$') => new EngineError('parse-failed', message, { path }),
  validationFailed: (message: string, path = '$') => new EngineError('validation-failed', message, { path }),
  notSupported: (message: string, path = '$') => new EngineError('not-supported', message, { path }),
  accessDenied: (message = 'restricted access : admin only', path = '$') =>
    new EngineError('access-denied', message, { path }),
  unexpected: (message: string, internal?: unknown) => new EngineError('unexpected', message, { internal }),
} as const;

/** Codes for errors that stop the engine from booting; each names what is wrong. */
export type BootErrorCode =
  | 'E_PLUGIN_UNKNOWN'
  | 'E_PLUGIN_DEPENDENCY_MISSING'
  | 'E_PLUGIN_DEPENDENCY_CYCLE'
  | 'E_PLUGIN_DUPLICATE'
  | 'E_PLUGIN_OPTIONS_INVALID'
  | 'E_PLUGIN_CONFIG_INVALID'
  | 'E_OPTION_INVALID'
  | 'E_OPTION_NOT_ENFORCED'
  | 'E_DATABASE_UNAVAILABLE'
  | 'E_PORT_UNAVAILABLE'
  | 'E_DATA_DIR_LOCKED'
  | 'E_CATALOG_MIGRATION';

export class BootError extends Error {
  readonly [BOOT_ERROR] = true;
  readonly code: BootErrorCode;
  constructor(code: BootErrorCode, message: string, options?: { cause?: unknown }) {
    super(`${code}: ${message}`, options);
    this.name = 'BootError';
    this.code = code;
  }
}

export const isBootError = (e: unknown): e is BootError =>
  typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[BOOT_ERROR] === true;

/** Any thrown value as an EngineError: unexpected ones become a 500 `unexpected` with the detail kept internal. */
export function toEngineError(e: unknown): EngineError {
  if (isEngineError(e)) return e;
  return new EngineError('unexpected', 'an unexpected error occurred', { status: 500, internal: String(e), cause: e });
}

/** `{path, error, code}` (and `internal` when it may be shown), the metadata and query APIs' error body. */
export function errorBody(err: EngineError, showInternal: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { path: err.path, error: err.message, code: err.code };
  if (showInternal && err.internal !== undefined) body['internal'] = err.internal;
  return body;
}
