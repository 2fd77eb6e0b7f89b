/**
 * The parsed server configuration: every option of Document 2 §2.7 (plus the few the engine adds),
 * after flags, environment variables and defaults have been merged and checked. The option table
 * in config/options.ts is the single description of each option; this type is its shape.
 */

/** The APIs the `--enabled-apis` option chooses between. */
export type ApiName = 'metadata' | 'graphql' | 'pgdump' | 'config' | 'metrics';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type IsolationLevel = 'read-committed' | 'repeatable-read' | 'serializable';

export interface ServerConfig {
  // Database connection
  databaseUrl?: string;
  metadataDatabaseUrl?: string;
  metadataDatabaseExtensionsSchema: string;
  /** Directory for the embedded database used when no database URL is given. */
  dataDir: string;

  // Access control
  adminSecret?: string;
  adminInternalErrors: boolean;
  devMode: boolean;
  authHook?: string;
  authHookMode: 'GET' | 'POST';
  /** The raw JSON of --jwt-secret, already checked to be a JSON object. */
  jwtSecret?: Record<string, unknown>;
  unauthorizedRole?: string;
  preserve401Errors: boolean;

  // Deprecated connection-pool options (still parsed; used as defaults for sources)
  pgConnections: number;
  pgConnLifetime: number;
  pgStripes: number;
  pgTimeout: number;
  txIsolation: IsolationLevel;
  noOfRetries: number;
  usePreparedStatements: boolean;
  queryPlanCacheSize: number;
  poolTimeout?: number;
  /** Seconds; unset or 0: statements may run for ever (plugins/db/postgres/stall-guard.ts). */
  pgStatementTimeout?: number;
  /** False: source connections run with `jit = off` (plugins/db/postgres/pool.ts says why). */
  pgJit: boolean;

  // HTTP
  serverHost: string;
  serverPort: number;
  corsDomain?: string[];
  disableCors: boolean;
  corsWildcardCredentials: boolean;
  maxRequestBodySize: number;
  enabledApis: ApiName[];
  consoleAssetsDir?: string;
  /** Unset means "as --dev-mode": the console is on for development only. */
  enableConsole?: boolean;
  gracefulShutdownTimeout: number;
  /** Milliseconds a client has to send the request headers. */
  httpHeadersTimeout: number;
  /** Worker processes on one port; unset: the number of cores with NODE_ENV=production, else 1. */
  workers?: number;

  // Features
  enableAllowlist: boolean;
  /** Redis shared by the engine instances (rate-limit counters unless rateLimitRedisUrl is set). */
  redisUrl?: string;
  rateLimitRedisUrl?: string;
  enableMaintenanceMode: boolean;
  enableMetadataQueryLogging: boolean;
  enableRemoteSchemaPermissions: boolean;
  enableTelemetry: boolean;
  enableLogCompression?: boolean;
  experimentalFeatures: string[];
  inferFunctionPermissions: boolean;
  stringifyNumericTypes: boolean;
  websocketCompression: boolean;
  /** Keep the websocket handshake's `Cookie` when CORS is disabled (dropped otherwise). */
  wsReadCookie: boolean;
  websocketKeepalive: number;
  websocketConnectionInitTimeout: number;
  closeWebsocketsOnMetadataChange: boolean;
  schemaSyncPollInterval: number;
  pluginConfig?: string;

  // Observability
  /** Bearer token that reads /v1/metrics (the admin secret also does). */
  metricsSecret?: string;

  // Logging
  logLevel: LogLevel;
  enabledLogTypes: string[];

  // Background work
  asyncActionsFetchInterval?: number;
  eventsHttpPoolSize: number;
  eventsFetchBatchSize: number;
  eventsFetchInterval?: number;
  liveQueriesMultiplexedBatchSize: number;
  liveQueriesMultiplexedRefetchInterval: number;
  liveQueriesChangeTracking: boolean;
  streamingQueriesMultiplexedBatchSize: number;
  streamingQueriesMultiplexedRefetchInterval: number;
}
