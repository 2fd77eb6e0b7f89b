/**
 * THE server option table (Document 2 §2.7 plus the options the engine adds). The parser, the CLI
 * help, docs/configuration.md and /v1alpha1/config all read this one table, so an option described
 * here is described the same everywhere; adding an entry is all it takes to add an option.
 */
import type { ServerConfig } from '../core/config/types.js';
import { CONFIGURABLE_LOG_TYPES } from '../core/logger.js';

/** How an option's raw text is read; the parser turns each kind into its config value. */
export type OptionType =
  | { readonly kind: 'string' }
  | { readonly kind: 'url'; readonly schemes: readonly string[] }
  | { readonly kind: 'integer'; readonly min?: number; readonly max?: number }
  | { readonly kind: 'port' }
  | { readonly kind: 'seconds' }
  | { readonly kind: 'milliseconds'; readonly min?: number }
  /** Takes a true/false value; on the command line the value may be left out to mean true. */
  | { readonly kind: 'boolean' }
  /** Switched on by its presence on the command line; its env var takes a boolean string. */
  | { readonly kind: 'flag' }
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  | {
      readonly kind: 'list';
      readonly values?: readonly string[];
      /** Other spellings accepted for a value (the reference engine's names for the neutral ones). */
      readonly aliases?: { readonly [alias: string]: string };
      /** For open lists: the shape each item must have, and how to say so in an error. */
      readonly itemPattern?: RegExp;
      readonly itemHint?: string;
    }
  /** CORS origins: `*`, or a comma list of scheme://host[:port] with optional `*.` subdomain. */
  | { readonly kind: 'origins' }
  | { readonly kind: 'json-object' };

export type OptionValue = string | number | boolean | readonly string[] | Readonly<Record<string, unknown>>;

/** The parts the flag-only connection options give; they compose a database URL. */
export interface ConnectionParams {
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  dbname?: string;
  options?: string;
}

/** A ServerConfig field, or a part of the database URL for the flag-only connection options. */
export type OptionKey = keyof ServerConfig | `connection.${keyof ConnectionParams}`;

export interface ServerOption {
  readonly key: OptionKey;
  /** Long flag without the leading dashes. */
  readonly flag: string;
  readonly short?: string;
  /** Absent for the flag-only connection options. */
  readonly env?: string;
  readonly type: OptionType;
  /** Placeholder shown in help, when the type's own one says too little. */
  readonly valueName?: string;
  readonly default?: OptionValue;
  /** What the docs say when there is no default value, or it is not a plain value. */
  readonly defaultText?: string;
  readonly deprecated?: { readonly replacement: string };
  /** `server` options come before `serve` on the command line (they may also follow it). */
  readonly scope: 'server' | 'serve';
  /**
   * Whether the option always takes effect (the core builds what it controls); `false` with a note
   * when there is nothing for it to do. An option whose effect comes from a plugin names a
   * `feature` instead.
   */
  readonly inEffect?: boolean;
  /**
   * The feature (a name some plugin `provides`) that enforces this option. Set to a non-default
   * value while no loaded plugin provides it, the option stops the engine at boot
   * (E_OPTION_NOT_ENFORCED) instead of being silently ignored; see core/features.
   */
  readonly feature?: string;
  readonly note?: string;
  /** Never echoed back, not even in an error about its value. */
  readonly secret?: boolean;
  readonly description: string;
}

const PG_URL: OptionType = { kind: 'url', schemes: ['postgres', 'postgresql'] };
const STRING: OptionType = { kind: 'string' };
const BOOL: OptionType = { kind: 'boolean' };
const FLAG: OptionType = { kind: 'flag' };
const SECONDS: OptionType = { kind: 'seconds' };
const COUNT: OptionType = { kind: 'integer', min: 1 };
const MS: OptionType = { kind: 'milliseconds' };
const REFETCH_MS: OptionType = { kind: 'milliseconds', min: 1 };

const POOL_DEFAULT = 'default for the source given by the database URL';

export const API_NAMES = ['metadata', 'graphql', 'pgdump', 'config', 'metrics'] as const;
/** Served unless --enabled-apis says otherwise; `metrics` is opt-in, as in the reference engine. */
export const DEFAULT_APIS = ['metadata', 'graphql', 'pgdump', 'config'] as const;
export const EXPERIMENTAL_FEATURES = [
  'inherited_roles',
  'optimise_permission_filters',
  'naming_convention',
  'streaming_subscriptions',
  'gateway_federation',
  'hide_update_many_fields',
  'wh_string_numeric_input',
  'hide_aggregation_predicates',
  'hide_stream_fields',
] as const;
export type ExperimentalFeature = (typeof EXPERIMENTAL_FEATURES)[number];

/**
 * The reference engine's spellings of the features the spec names neutrally (Document 2 §2.7), so
 * a configuration carried over from it starts unchanged.
 */
export const EXPERIMENTAL_FEATURE_ALIASES: { readonly [alias: string]: ExperimentalFeature } = {
  apollo_federation: 'gateway_federation',
  bigquery_string_numeric_input: 'wh_string_numeric_input',
};

/**
 * What each experimental feature needs to be honoured: `built` (the core does it), a `feature` some
 * plugin must provide, or nothing built yet (`built: false`), in which case giving it stops the
 * engine at boot with E_OPTION_NOT_ENFORCED, like any option whose effect is missing.
 */
export type ExperimentalSupport =
  | { readonly built: boolean; readonly note: string }
  | { readonly feature: string; readonly note: string };

export const EXPERIMENTAL_FEATURE_SUPPORT: { readonly [K in ExperimentalFeature]: ExperimentalSupport } = {
  inherited_roles: {
    feature: 'inherited-roles',
    note: 'roles made of other roles (`add_inherited_role`, the metadata `inherited_roles`) get permissions derived from their parents; without it add_inherited_role is refused and an `inherited_roles` section is inconsistent',
  },
  optimise_permission_filters: {
    built: true,
    note: 'a relationship\'s target filter of the form `{<relationship back>: <the parent table\'s filter>}` is left out of the join (the parent row already passes it); answers are unchanged, the SQL has one EXISTS fewer',
  },
  naming_convention: { built: true, note: 'a source customization\'s `naming_convention` applies, given or not' },
  streaming_subscriptions: { feature: 'streaming-subscriptions', note: '`<table>_stream` subscriptions are served, given or not' },
  gateway_federation: {
    feature: 'gateway-federation',
    note: 'Apollo Federation subgraph: `_service { sdl }`, and `_entities` over the tables tracked with `gateway_federation_config: {enable: "v1"}` (`@key` on their primary key)',
  },
  hide_update_many_fields: { built: true, note: 'hides the `update_<table>_many` root fields' },
  wh_string_numeric_input: {
    feature: 'wh-string-numeric-input',
    note: 'numeric columns of `wh_` (BigQuery) sources take numbers or strings holding them as input (scalars `wh_int`, `wh_float`, `wh_decimal`)',
  },
  hide_aggregation_predicates: { built: true, note: 'hides the `<relationship>_aggregate` fields of bool-exp types' },
  hide_stream_fields: { built: true, note: 'hides the `<table>_stream` root fields' },
};

function experimentalFeaturesNote(): string {
  const parts = EXPERIMENTAL_FEATURES.map((name) => {
    const s: ExperimentalSupport = EXPERIMENTAL_FEATURE_SUPPORT[name];
    if ('feature' in s) return `\`${name}\`: ${s.note} (needs a plugin providing \`${s.feature}\`)`;
    return s.built ? `\`${name}\`: ${s.note}` : `\`${name}\`: ${s.note}, refused at boot (E_OPTION_NOT_ENFORCED)`;
  });
  const aliases = Object.entries(EXPERIMENTAL_FEATURE_ALIASES).map(([alias, name]) => `\`${alias}\` for \`${name}\``);
  return `an unknown name is refused at boot (E_OPTION_INVALID); the reference's names are accepted (${aliases.join(', ')}); ${parts.join('; ')}`;
}

export const SERVER_OPTIONS = [
  // ---- database connection (server flags) ----
  {
    key: 'databaseUrl', flag: 'database-url', env: 'SVC_GRAPHQL_DATABASE_URL', type: PG_URL, secret: true,
    defaultText: 'none (embedded database in --data-dir)', scope: 'server', inEffect: true,
    description: 'database URL, postgres://<user>:<password>@<host>:<port>/<db-name>; served as the `default` source',
  },
  {
    key: 'metadataDatabaseUrl', flag: 'metadata-database-url', env: 'SVC_GRAPHQL_METADATA_DATABASE_URL', type: PG_URL,
    secret: true, defaultText: 'the database URL', scope: 'server', inEffect: true,
    description: 'database URL where metadata is stored',
  },
  {
    key: 'connection.host', flag: 'host', type: STRING, scope: 'server', inEffect: true,
    description: 'database host; with --dbname composes the database URL when --database-url is not given',
  },
  {
    key: 'connection.port', flag: 'port', type: { kind: 'port' }, defaultText: 'none (5432)', scope: 'server',
    inEffect: true, description: 'database port (the HTTP port is --server-port)',
  },
  { key: 'connection.user', flag: 'user', type: STRING, scope: 'server', inEffect: true, description: 'database user' },
  {
    key: 'connection.password', flag: 'password', type: STRING, secret: true, scope: 'server', inEffect: true,
    description: 'database password',
  },
  {
    key: 'connection.dbname', flag: 'dbname', type: STRING, scope: 'server', inEffect: true,
    description: 'database name; with --host composes the database URL when --database-url is not given',
  },
  {
    key: 'connection.options', flag: 'pg-connection-options', type: STRING, valueName: 'options', scope: 'server',
    inEffect: true,
    description: 'connection options passed as the URL `options` parameter, e.g. "-c extra_float_digits=3"',
  },
  {
    key: 'noOfRetries', flag: 'retries', env: 'SVC_GRAPHQL_NO_OF_RETRIES', type: { kind: 'integer', min: 0 },
    default: 1, deprecated: { replacement: 'pool_settings.retries in the source connection_info' }, scope: 'server',
    inEffect: true, note: POOL_DEFAULT, description: 'retries on a database connection error',
  },
  {
    key: 'dataDir', flag: 'data-dir', env: 'SVC_GRAPHQL_DATA_DIR', type: STRING, valueName: 'path',
    default: './svc-data', scope: 'server', inEffect: true,
    description: 'directory of the embedded database used when no database URL is given',
  },

  // ---- access control ----
  {
    key: 'adminSecret', flag: 'admin-secret', env: 'SVC_GRAPHQL_ADMIN_SECRET', type: STRING, secret: true,
    scope: 'serve', inEffect: true,
    description: 'admin secret; mandatory with webhook or JWT mode',
  },
  {
    key: 'adminInternalErrors', flag: 'admin-internal-errors', env: 'SVC_GRAPHQL_ADMIN_INTERNAL_ERRORS', type: BOOL,
    default: true, scope: 'serve', inEffect: true,
    description: 'include `internal` information in error responses to admin requests',
  },
  {
    key: 'devMode', flag: 'dev-mode', env: 'SVC_GRAPHQL_DEV_MODE', type: FLAG, default: false, scope: 'serve',
    inEffect: true, description: 'include internal error details in error extensions for every request',
  },
  {
    key: 'authHook', flag: 'auth-hook', env: 'SVC_GRAPHQL_AUTH_HOOK', type: { kind: 'url', schemes: ['http', 'https'] },
    scope: 'serve', inEffect: true, description: 'authentication webhook URL',
  },
  {
    key: 'authHookMode', flag: 'auth-hook-mode', env: 'SVC_GRAPHQL_AUTH_HOOK_MODE',
    type: { kind: 'enum', values: ['GET', 'POST'] }, default: 'GET', scope: 'serve', inEffect: true,
    description: 'HTTP method used to call the authentication webhook',
  },
  {
    key: 'jwtSecret', flag: 'jwt-secret', env: 'SVC_GRAPHQL_JWT_SECRET', type: { kind: 'json-object' }, secret: true,
    scope: 'serve', inEffect: true,
    description: 'JWT verification configuration: a JSON object with `type` and `key` and optional details',
  },
  {
    key: 'unauthorizedRole', flag: 'unauthorized-role', env: 'SVC_GRAPHQL_UNAUTHORIZED_ROLE', type: STRING,
    valueName: 'role', scope: 'serve', inEffect: true,
    description: 'role for requests without credentials (no admin secret, or no Authorization header in JWT mode)',
  },
  {
    key: 'preserve401Errors', flag: 'preserve-401-errors', env: 'SVC_GRAPHQL_PRESERVE_401_ERRORS', type: FLAG,
    default: false, scope: 'serve', inEffect: true,
    description: 'answer 401 errors on /v1/graphql with status 401 instead of 200',
  },

  // ---- deprecated connection-pool options ----
  {
    key: 'pgConnections', flag: 'connections', short: 'c', env: 'SVC_GRAPHQL_PG_CONNECTIONS', type: COUNT,
    default: 50, deprecated: { replacement: 'pool_settings.max_connections in the source connection_info' },
    scope: 'serve', inEffect: true, note: POOL_DEFAULT, description: 'maximum connections per stripe',
  },
  {
    key: 'pgConnLifetime', flag: 'conn-lifetime', env: 'SVC_GRAPHQL_PG_CONN_LIFETIME', type: SECONDS, default: 600,
    deprecated: { replacement: 'pool_settings.connection_lifetime in the source connection_info' }, scope: 'serve',
    inEffect: true, note: POOL_DEFAULT, description: 'connection lifetime; 0 never destroys an active connection',
  },
  {
    key: 'pgStripes', flag: 'stripes', short: 's', env: 'SVC_GRAPHQL_PG_STRIPES', type: COUNT, default: 1,
    deprecated: { replacement: 'pool_settings.max_connections in the source connection_info (no sub-pools)' },
    scope: 'serve', inEffect: true, note: POOL_DEFAULT, description: 'number of sub-pools',
  },
  {
    key: 'pgTimeout', flag: 'timeout', env: 'SVC_GRAPHQL_PG_TIMEOUT', type: SECONDS, default: 180,
    deprecated: { replacement: 'pool_settings.idle_timeout in the source connection_info' }, scope: 'serve',
    inEffect: true, note: POOL_DEFAULT, description: 'idle time before a connection is closed',
  },
  {
    key: 'txIsolation', flag: 'tx-iso', short: 'i', env: 'SVC_GRAPHQL_TX_ISOLATION',
    type: { kind: 'enum', values: ['read-committed', 'repeatable-read', 'serializable'] }, default: 'read-committed',
    deprecated: { replacement: 'isolation_level in the source connection_info' }, scope: 'serve', inEffect: true,
    note: POOL_DEFAULT, description: 'transaction isolation level',
  },
  {
    key: 'usePreparedStatements', flag: 'use-prepared-statements', env: 'SVC_GRAPHQL_USE_PREPARED_STATEMENTS',
    type: BOOL, default: true, deprecated: { replacement: 'use_prepared_statements in the source connection_info' },
    scope: 'serve', inEffect: true, note: POOL_DEFAULT, description: 'use prepared statements',
  },
  {
    key: 'queryPlanCacheSize', flag: 'query-plan-cache-size', env: 'SVC_GRAPHQL_QUERY_PLAN_CACHE_SIZE',
    type: { kind: 'integer', min: 0, max: 65535 }, default: 4000,
    deprecated: { replacement: 'nothing; the default suits almost every deployment' }, scope: 'serve', inEffect: true,
    note: 'entries of the parsed-and-planned operation cache (the reference engine ignores it; this engine uses it)',
    description: 'query plan cache size; 0 disables',
  },
  {
    key: 'poolTimeout', flag: 'pool-timeout', env: 'SVC_GRAPHQL_POOL_TIMEOUT', type: SECONDS,
    defaultText: 'wait forever', deprecated: { replacement: 'pool_settings.pool_timeout in the source connection_info' },
    scope: 'serve', inEffect: true, note: POOL_DEFAULT, description: 'time to wait to acquire a database connection',
  },

  {
    key: 'pgStatementTimeout', flag: 'pg-statement-timeout', env: 'SVC_GRAPHQL_PG_STATEMENT_TIMEOUT', type: SECONDS,
    defaultText: 'none (no limit); 0 is also none', scope: 'serve', inEffect: true,
    note: 'applies to every PostgreSQL source, run_sql included, and to the pools on the metadata database (metadata store, scheduled triggers, async actions); the embedded database does not apply statement_timeout itself, so there only the engine\'s deadline (1 s later) ends a statement; an engine option, not in the reference',
    description:
      'longest a database statement may run: sent to PostgreSQL as statement_timeout (the statement fails with `statement-timeout`), ' +
      'and kept by the engine too: a statement still unanswered 1 s later (a stalled database or network path) fails with ' +
      '`statement-timeout` and its connection is closed; opening a connection has the same limit',
  },
  {
    key: 'pgJit', flag: 'pg-jit', env: 'SVC_GRAPHQL_PG_JIT', type: BOOL, default: false, scope: 'serve', inEffect: true,
    note: 'applies to every PostgreSQL source (run_sql included) and its read replicas; off by default because LLVM compiles a deep `where` tree for up to a minute, and neither statement_timeout nor a cancel stops the compilation (docs/security.md); an engine option, not in the reference, which leaves JIT to the database',
    description:
      'let PostgreSQL JIT-compile the engine\'s statements (the database\'s own jit settings then apply); ' +
      'when false each source connection runs `SET jit = off` once, when it opens',
  },

  // ---- HTTP ----
  {
    key: 'serverHost', flag: 'server-host', env: 'SVC_GRAPHQL_SERVER_HOST', type: STRING, valueName: 'host',
    default: '*', scope: 'serve', inEffect: true, description: 'host to listen on; `*` means all interfaces',
  },
  {
    key: 'serverPort', flag: 'server-port', env: 'SVC_GRAPHQL_SERVER_PORT', type: { kind: 'port' }, default: 8080,
    scope: 'serve', inEffect: true, description: 'HTTP port to listen on',
  },
  {
    key: 'corsDomain', flag: 'cors-domain', env: 'SVC_GRAPHQL_CORS_DOMAIN', type: { kind: 'origins' },
    scope: 'serve', inEffect: true,
    description: 'allowed CORS origins: `*`, or a comma list such as https://app.example.com, http://localhost:3000, https://*.example.com',
  },
  {
    key: 'corsWildcardCredentials', flag: 'cors-wildcard-credentials', env: 'SVC_GRAPHQL_CORS_WILDCARD_CREDENTIALS',
    type: FLAG, default: false, scope: 'serve', inEffect: true,
    note: 'stricter than the reference engine, which always allows credentials (docs/security.md)',
    description:
      'allow credentials (cookies) from every origin when --cors-domain allows every origin and an auth mode reads cookies (JWT from a cookie, or a webhook); off, such origins get CORS headers without Access-Control-Allow-Credentials',
  },
  {
    key: 'disableCors', flag: 'disable-cors', env: 'SVC_GRAPHQL_DISABLE_CORS', type: FLAG, default: false,
    scope: 'serve', inEffect: true, description: 'send no CORS headers',
  },
  {
    key: 'maxRequestBodySize', flag: 'max-request-body-size', env: 'SVC_GRAPHQL_MAX_REQUEST_BODY_SIZE', type: COUNT,
    valueName: 'bytes', default: 104857600, scope: 'serve', inEffect: true,
    description: 'largest accepted request body, in bytes',
  },
  {
    key: 'enabledApis', flag: 'enabled-apis', env: 'SVC_GRAPHQL_ENABLED_APIS', type: { kind: 'list', values: API_NAMES },
    default: DEFAULT_APIS, scope: 'serve', inEffect: true, description: 'APIs that are served; the others answer 404',
  },
  {
    key: 'consoleAssetsDir', flag: 'console-assets-dir', env: 'SVC_GRAPHQL_CONSOLE_ASSETS_DIR', type: STRING,
    valueName: 'path', scope: 'serve', feature: 'console', defaultText: 'the assets built by `npm run build`',
    description: 'directory to load console assets from (a built copy of plugins/api/console/dist)',
  },
  {
    key: 'enableConsole', flag: 'enable-console', env: 'SVC_GRAPHQL_ENABLE_CONSOLE', type: BOOL,
    defaultText: 'false; true with --dev-mode', scope: 'serve', feature: 'console',
    description: 'serve the console on /console (and redirect / there); off, both answer 404',
  },
  {
    key: 'httpHeadersTimeout', flag: 'http-headers-timeout', env: 'SVC_GRAPHQL_HTTP_HEADERS_TIMEOUT',
    type: { kind: 'milliseconds', min: 1000 }, default: 20000, scope: 'serve', inEffect: true,
    note: 'checked every second; the whole request (headers and body) must arrive within max(300 s, this)',
    description: 'time a client has to send the request headers before the connection is closed (slow clients cannot hold sockets)',
  },
  {
    key: 'workers', flag: 'workers', env: 'SVC_GRAPHQL_WORKERS', type: { kind: 'integer', min: 1, max: 256 },
    defaultText: 'the number of cores when NODE_ENV=production, else 1', scope: 'serve', inEffect: true,
    note: 'each worker has its own pools, which split --pg-connections and pool_settings.max_connections between them (rounded up), and its own plan cache; background runners run in worker 1 only; needs a database URL (the embedded database serves one process)',
    description: 'worker processes serving one port (node:cluster); metadata changes reach every worker at once',
  },
  {
    key: 'gracefulShutdownTimeout', flag: 'graceful-shutdown-timeout', env: 'SVC_GRAPHQL_GRACEFUL_SHUTDOWN_TIMEOUT',
    type: SECONDS, default: 60, scope: 'serve', inEffect: true,
    description: 'time to wait for in-flight work before shutting down; unfinished events are marked pending',
  },

  // ---- features ----
  {
    key: 'metadataDatabaseExtensionsSchema', flag: 'metadata-database-extensions-schema',
    env: 'SVC_GRAPHQL_METADATA_DATABASE_EXTENSIONS_SCHEMA', type: STRING, valueName: 'schema', default: 'public',
    scope: 'serve', inEffect: false, note: 'the metadata catalog needs no extension, so there is nothing to place',
    description: 'schema where extensions are installed in the metadata database',
  },
  {
    key: 'enableAllowlist', flag: 'enable-allowlist', env: 'SVC_GRAPHQL_ENABLE_ALLOWLIST', type: BOOL, default: false,
    scope: 'serve', feature: 'allowlist', note: 'enforced by the metadata/allowlist plugin; admin requests are exempt',
    description: 'only run queries that are in the allow-list',
  },
  {
    key: 'redisUrl', flag: 'redis-url', env: 'SVC_GRAPHQL_REDIS_URL', type: { kind: 'url', schemes: ['redis', 'rediss'] },
    secret: true, scope: 'serve', inEffect: true, note: 'used for rate limits unless --rate-limit-redis-url is given',
    description: 'Redis URL, redis://[:<password>@]<host>:<port>[/<db>], shared by the engine instances of one deployment',
  },
  {
    key: 'rateLimitRedisUrl', flag: 'rate-limit-redis-url', env: 'SVC_GRAPHQL_RATE_LIMIT_REDIS_URL',
    type: { kind: 'url', schemes: ['redis', 'rediss'] }, secret: true, defaultText: 'the Redis URL', scope: 'serve',
    inEffect: true,
    note: 'without either Redis URL, rate limits are counted in the metadata database (also shared by every instance)',
    description: 'Redis URL where rate-limit counters are kept, so that every engine instance counts the same requests',
  },
  {
    key: 'enableLogCompression', flag: 'enable-log-compression', env: 'SVC_GRAPHQL_ENABLE_LOG_COMPRESSION', type: BOOL,
    scope: 'serve', feature: 'log-compression',
    description: 'send compressed logs to a metrics server',
  },
  {
    key: 'enableMaintenanceMode', flag: 'enable-maintenance-mode', env: 'SVC_GRAPHQL_ENABLE_MAINTENANCE_MODE',
    type: FLAG, default: false, scope: 'serve', inEffect: true, description: 'refuse metadata updates',
  },
  {
    key: 'enableMetadataQueryLogging', flag: 'enable-metadata-query-logging',
    env: 'SVC_GRAPHQL_ENABLE_METADATA_QUERY_LOGGING', type: FLAG, default: false, scope: 'serve', inEffect: true,
    description: 'log the query of metadata requests',
  },
  {
    key: 'enableRemoteSchemaPermissions', flag: 'enable-remote-schema-permissions',
    env: 'SVC_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS', type: FLAG, default: false, scope: 'serve', feature: 'remote-schema-permissions',
    note: 'enforced by the metadata/remote-schemas plugin: roles other than admin see a remote schema only through their permission',
    description: 'enable remote schema permissions',
  },
  {
    key: 'enableTelemetry', flag: 'enable-telemetry', env: 'SVC_GRAPHQL_ENABLE_TELEMETRY', type: BOOL, default: false,
    scope: 'serve', feature: 'telemetry',
    note: 'the engine has no telemetry to send: the default is false (the reference engine\'s is true) and true is refused unless a plugin provides it',
    description: 'anonymous telemetry',
  },
  {
    key: 'experimentalFeatures', flag: 'experimental-features', env: 'SVC_GRAPHQL_EXPERIMENTAL_FEATURES',
    type: { kind: 'list', values: EXPERIMENTAL_FEATURES, aliases: EXPERIMENTAL_FEATURE_ALIASES }, default: [], scope: 'serve', inEffect: true,
    note: experimentalFeaturesNote(), description: 'experimental features to turn on',
  },
  {
    key: 'inferFunctionPermissions', flag: 'infer-function-permissions', env: 'SVC_GRAPHQL_INFER_FUNCTION_PERMISSIONS',
    type: BOOL, default: true, scope: 'serve', inEffect: true,
    description:
      'infer permissions of stable/immutable functions from select permissions on their table; when false a function needs an explicit permission',
  },
  {
    key: 'stringifyNumericTypes', flag: 'stringify-numeric-types', env: 'SVC_GRAPHQL_STRINGIFY_NUMERIC_TYPES',
    type: BOOL, default: false, scope: 'serve', inEffect: true,
    description: 'return bigint, numeric, decimal and double precision values as strings',
  },
  {
    key: 'websocketCompression', flag: 'websocket-compression', env: 'SVC_GRAPHQL_CONNECTION_COMPRESSION', type: FLAG,
    default: false, scope: 'serve', feature: 'websockets',
    description: 'compress websocket messages (permessage-deflate, when the client offers it)',
  },
  {
    key: 'wsReadCookie', flag: 'ws-read-cookie', env: 'SVC_GRAPHQL_WS_READ_COOKIE', type: FLAG,
    default: false, scope: 'serve', feature: 'websockets',
    description:
      "pass the handshake's `Cookie` header to websocket authentication even when CORS is disabled (without CORS a browser sends any site's visitors' cookies: a potential security flaw)",
  },
  {
    key: 'websocketKeepalive', flag: 'websocket-keepalive', env: 'SVC_GRAPHQL_WEBSOCKET_KEEPALIVE', type: SECONDS,
    default: 5, scope: 'serve', feature: 'websockets',
    description: 'seconds between keep-alive messages on websockets (`ka`, or `ping` for graphql-transport-ws)',
  },
  {
    key: 'websocketConnectionInitTimeout', flag: 'websocket-connection-init-timeout',
    env: 'SVC_GRAPHQL_WEBSOCKET_CONNECTION_INIT_TIMEOUT', type: SECONDS, default: 3, scope: 'serve', feature: 'websockets',
    description: 'seconds a websocket may stay open without `connection_init` before it is closed',
  },
  {
    key: 'closeWebsocketsOnMetadataChange', flag: 'close-websockets-on-metadata-change',
    env: 'SVC_GRAPHQL_CLOSE_WEBSOCKETS_ON_METADATA_CHANGE', type: BOOL, default: true, scope: 'serve', feature: 'websockets',
    description: 'close every websocket (code 1012) when the metadata changes, so clients reconnect to the new schema',
  },
  {
    key: 'schemaSyncPollInterval', flag: 'schema-sync-poll-interval', env: 'SVC_GRAPHQL_SCHEMA_SYNC_POLL_INTERVAL',
    type: MS, default: 1000, scope: 'serve', inEffect: true,
    description: 'how often to poll the metadata database for changes by other instances; 0 disables',
  },
  {
    key: 'pluginConfig', flag: 'plugin-config', env: 'SVC_GRAPHQL_PLUGIN_CONFIG', type: STRING, valueName: 'path',
    defaultText: 'none (config/plugins.json)', scope: 'serve', inEffect: true,
    description: 'plugin config JSON file choosing and configuring the plugins to load',
  },

  // ---- logging ----
  {
    key: 'logLevel', flag: 'log-level', env: 'SVC_GRAPHQL_LOG_LEVEL',
    type: { kind: 'enum', values: ['debug', 'info', 'warn', 'error'] }, default: 'info', scope: 'serve',
    inEffect: true, description: 'logging level',
  },
  {
    key: 'enabledLogTypes', flag: 'enabled-log-types', env: 'SVC_GRAPHQL_ENABLED_LOG_TYPES',
    type: { kind: 'list', values: [...CONFIGURABLE_LOG_TYPES] },
    default: ['startup', 'http-log', 'webhook-log', 'websocket-log'], scope: 'serve', inEffect: true,
    note: 'other log types (event-trigger, scheduled-trigger, metadata, schema-sync, health-check-log ...) report the engine\'s own health and follow --log-level only',
    description: 'log types that are written',
  },

  // ---- observability ----
  {
    key: 'metricsSecret', flag: 'metrics-secret', env: 'SVC_GRAPHQL_METRICS_SECRET', type: STRING, secret: true,
    defaultText: 'none (the admin secret is required)', scope: 'serve', inEffect: true,
    note: 'the metrics API is served when `metrics` is in --enabled-apis',
    description: 'bearer token (`Authorization: Bearer <secret>`) that reads /v1/metrics; the admin secret always does',
  },

  // ---- background work ----
  {
    key: 'asyncActionsFetchInterval', flag: 'async-actions-fetch-interval',
    env: 'SVC_GRAPHQL_ASYNC_ACTIONS_FETCH_INTERVAL', type: MS, defaultText: 'none (1000 ms applies)', scope: 'serve', feature: 'async-actions', description: 'pause before refetching async actions after an empty fetch; 0 disables fetching (this engine then delivers none)',
  },
  {
    key: 'eventsHttpPoolSize', flag: 'events-http-pool-size', env: 'SVC_GRAPHQL_EVENTS_HTTP_POOL_SIZE', type: COUNT,
    default: 100, scope: 'serve', feature: 'event-triggers',
    description: 'maximum event webhook deliveries in flight at once, across all sources',
  },
  {
    key: 'eventsFetchBatchSize', flag: 'events-fetch-batch-size', env: 'SVC_GRAPHQL_EVENTS_FETCH_BATCH_SIZE',
    type: COUNT, default: 100, scope: 'serve', feature: 'event-triggers',
    description: 'maximum events claimed per fetch from one source',
  },
  {
    key: 'eventsFetchInterval', flag: 'events-fetch-interval', env: 'SVC_GRAPHQL_EVENTS_FETCH_INTERVAL', type: REFETCH_MS,
    defaultText: 'none (1000 ms applies)', scope: 'serve', feature: 'event-triggers',
    description: 'pause before fetching events again after a fetch that did not fill a batch',
  },
  {
    key: 'liveQueriesMultiplexedBatchSize', flag: 'live-queries-multiplexed-batch-size',
    env: 'SVC_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_BATCH_SIZE', type: COUNT, default: 100, scope: 'serve', feature: 'live-queries',
    description: 'batch size of multiplexed live queries: cohorts served by one statement',
  },
  {
    key: 'liveQueriesMultiplexedRefetchInterval', flag: 'live-queries-multiplexed-refetch-interval',
    env: 'SVC_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL', type: REFETCH_MS, default: 1000, scope: 'serve',
    feature: 'live-queries', description: 'live query results are sent at most once per interval',
  },
  {
    key: 'liveQueriesChangeTracking', flag: 'live-queries-change-tracking', env: 'SVC_GRAPHQL_LIVE_QUERIES_CHANGE_TRACKING',
    type: BOOL, default: true, scope: 'serve', feature: 'live-queries',
    note: 'applies where the source can notify (PostgreSQL with LISTEN/NOTIFY and trigger rights); the embedded database always polls',
    description:
      'skip the refetch of live queries and streams whose tables saw no write since the last one (statement-level triggers and LISTEN/NOTIFY)',
  },
  {
    key: 'streamingQueriesMultiplexedBatchSize', flag: 'streaming-queries-multiplexed-batch-size',
    env: 'SVC_GRAPHQL_STREAMING_QUERIES_MULTIPLEXED_BATCH_SIZE', type: COUNT, default: 100, scope: 'serve',
    feature: 'streaming-subscriptions', description: 'batch size of multiplexed streaming queries',
  },
  {
    key: 'streamingQueriesMultiplexedRefetchInterval', flag: 'streaming-queries-multiplexed-refetch-interval',
    env: 'SVC_GRAPHQL_STREAMING_QUERIES_MULTIPLEXED_REFETCH_INTERVAL', type: REFETCH_MS, default: 1000, scope: 'serve',
    feature: 'streaming-subscriptions',
    description: 'streaming query results are sent at most once per interval',
  },
] as const satisfies readonly ServerOption[];

/** The table, typed loosely for code that just iterates it. */
export const OPTIONS: readonly ServerOption[] = SERVER_OPTIONS;

/** ServerConfig fields no option fills; kept `never` by a compile-time check in the tests. */
export type UncoveredConfigKeys = Exclude<keyof ServerConfig, (typeof SERVER_OPTIONS)[number]['key']>;

export function findOption(flag: string): ServerOption | undefined {
  return OPTIONS.find((o) => o.flag === flag);
}

/** `--server-port (SVC_GRAPHQL_SERVER_PORT)`: how errors and warnings name an option. */
export function optionLabel(o: ServerOption): string {
  return o.env ? `--${o.flag} (${o.env})` : `--${o.flag} (flag only)`;
}

export function formatDefault(o: ServerOption): string {
  if (o.defaultText !== undefined) return o.defaultText;
  const d = o.default;
  if (d === undefined) return 'none';
  if (Array.isArray(d)) return d.length === 0 ? 'none' : d.join(', ');
  if (typeof d === 'object') return JSON.stringify(d);
  return String(d);
}

export function typeLabel(t: OptionType): string {
  switch (t.kind) {
    case 'string':
      return 'string';
    case 'url':
      return `URL (${t.schemes.map((s) => `${s}://`).join(' or ')})`;
    case 'integer':
      if (t.min !== undefined && t.max !== undefined) return `integer ${t.min}-${t.max}`;
      return t.min !== undefined ? `integer >= ${t.min}` : 'integer';
    case 'port':
      return 'port (1-65535)';
    case 'seconds':
      return 'seconds';
    case 'milliseconds':
      return t.min ? `milliseconds >= ${t.min}` : 'milliseconds';
    case 'boolean':
      return 'true/false';
    case 'flag':
      return 'flag (env: true/false)';
    case 'enum':
      return t.values.join(' | ');
    case 'list':
      return t.values ? `comma list of ${t.values.join(', ')}` : 'comma list';
    case 'origins':
      return 'comma list of origins, or *';
    case 'json-object':
      return 'JSON object';
  }
}

/** The placeholder after the flag in help, e.g. `<port>`; flags take none, booleans an optional one. */
export function valuePlaceholder(o: ServerOption): string {
  const t = o.type;
  if (t.kind === 'flag') return '';
  if (t.kind === 'boolean') return '[true|false]';
  if (o.valueName) return `<${o.valueName}>`;
  switch (t.kind) {
    case 'enum':
      return `<${t.values.join('|')}>`;
    case 'integer':
      return '<n>';
    case 'milliseconds':
      return '<ms>';
    case 'json-object':
      return '<json>';
    default:
      return `<${t.kind}>`;
  }
}

/** The one-line help text: description, deprecation, env var and default. */
export function helpDescription(o: ServerOption): string {
  const parts = [o.description];
  if (o.type.kind === 'list' && o.type.values) parts.push(`(any of: ${o.type.values.join(', ')})`);
  if (o.deprecated) parts.push(`(deprecated: use ${o.deprecated.replacement})`);
  parts.push(o.env ? `[env: ${o.env}]` : '[flag only]');
  parts.push(`[default: ${formatDefault(o)}]`);
  return parts.join(' ');
}
