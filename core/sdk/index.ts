/**
 * The plugin SDK: the one module a plugin may import from the engine (package export
 * `svc-graphql-engine/sdk`). Everything here is a promise to plugin authors: names are added,
 * never renamed or removed without a major version. Plugins in this repository import it by its
 * relative path; test/unit/kernel/sdk-imports.test.ts fails if one reaches into core/ otherwise.
 */

// ---- Plugins, the kernel, hooks -------------------------------------------------------------
export { definePlugin, pluginId } from '../plugin.js';
export { PACKAGE_ROOT } from '../paths.js';
export type { Plugin, AnyPlugin, PluginKind, ApiName } from '../plugin.js';
export { Stage } from '../hooks.js';
export type { KernelHooks, LimitContext, LimitedOperation, SchemaCacheBuildContext, HttpRoutesContext, PluginsRegisteredContext } from '../hooks.js';
export type { PlatformEvent } from '../events.js';
export { asValue, asFunction, asClass } from 'awilix';
export type { AwilixContainer, Resolver } from 'awilix';
export type { ServerConfig, IsolationLevel, LogLevel } from '../config/types.js';
export type { Logger } from '../logger.js';
export { ENGINE_VERSION } from '../version.js';
export { createTestKernel } from '../kernel/test-kernel.js';
export type { TestKernelInit } from '../kernel/test-kernel.js';
export type { Kernel } from '../kernel/kernel.js';

// ---- Metrics and tracing --------------------------------------------------------------------
export { METRICS_KEY, LATENCY_BUCKETS, LAG_BUCKETS, createMetrics } from '../metrics/registry.js';
export type {
  MetricsRegistry,
  EngineInstruments,
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  MetricDefinition,
  HistogramDefinition,
  Labels,
} from '../metrics/registry.js';

export { tracing, Tracing, SpanKind, tracingConfigFromEnv, parseKeyValues } from '../tracing/tracing.js';
export { engineWorkerCount } from '../workers/messages.js';
export { engineSharedState, SHARED_STATE_KEY, type SharedState, type SharedValue } from '../workers/shared-state.js';
export type { TracingConfig, TraceContextJson, OtlpProtocol } from '../tracing/tracing.js';

// ---- Errors ---------------------------------------------------------------------------------
export { EngineError, BootError, errors, isEngineError, isBootError } from '../errors.js';
export { giveUpAtDeadline, timeLimitExceeded, TIME_LIMIT_EXCEEDED_MESSAGE } from '../db/time-limit.js';
export type { ErrorCode, EngineErrorInit, BootErrorCode } from '../errors.js';

// ---- Sessions and authentication ------------------------------------------------------------
export { ADMIN_ROLE, ADMIN_SESSION, isAdmin, makeSession, sessionVariablesFromHeaders, sessionVariablesJson, shareSession } from '../auth/session.js';
export type { Session, AuthRequest } from '../auth/session.js';
export { SessionCache, SESSION_CACHE_MAX_ENTRIES } from '../auth/session-cache.js';
export { checkAuthModeRequirements } from '../auth/mode-requirements.js';

// ---- Metadata operations --------------------------------------------------------------------
export { registerMetadataOperations, prefixedOperationTypes } from '../metadata/register.js';
export type { OperationSet, PrefixedHandler, OperationHandler } from '../metadata/register.js';
export { RawJsonBody, SUCCESS, dataOperationTypes } from '../metadata/operation.js';
export type { MetadataEndpoint, MetadataOperation, OperationContext, OperationResult, ReloadRequest } from '../metadata/operation.js';
export {
  ARGS_PATH,
  DEFAULT_SOURCE,
  LEGACY_PREFIX,
  argsObject,
  catalogIfAvailable,
  expectObject,
  findSource,
  findTable,
  isPlainObject,
  jsonTypeName,
  optionalBoolean,
  optionalString,
  parseFailed,
  parseTableName,
  quotedTable,
  requireBoolean,
  requireKey,
  requireSource,
  requireSourceOfKind,
  requireString,
  requireTable,
  requireTrackedTable,
  sameTable,
  sourceNameArg,
  tableTarget,
  toQualifiedTable,
  trackedTable,
} from '../metadata/args.js';
export type { ArgsObject, TableTarget } from '../metadata/args.js';
export { assertConsistent } from '../metadata/consistency.js';
export {
  PERMISSION_LIST_KEY,
  PERMISSION_TYPES,
  dependencyError,
  relationshipDependents,
  removeDependents,
  renameRelationshipInPermissions,
  reportDependent,
  sourceDependents,
  tableDependents,
} from '../metadata/dependencies.js';
export type { PermissionType, RelationshipKind, DependentObject } from '../metadata/dependencies.js';
export { computedFieldDependents, dropDependencyError, removeSchemaDependents } from '../metadata/schema-dependents.js';
export { applySchemaChange } from '../metadata/schema-change.js';
export type { SchemaChangeOutcome } from '../metadata/schema-change.js';
export { exportMetadata, parseMetadataDocument } from '../metadata/document.js';
export { metadataDocumentJson } from '../metadata/document-json.js';
export { freezeDocument } from '../metadata/cow-draft.js';
export { dropInconsistentObjects, inconsistencyDroppers } from '../metadata/drop-inconsistent.js';
export { rootFieldReservations } from '../metadata/root-field-reservations.js';
export type { RootFieldReservation } from '../metadata/root-field-reservations.js';
export type { InconsistencyDropper } from '../metadata/drop-inconsistent.js';
export { initialMetadata, DATABASE_URL_ENV } from '../metadata/defaults.js';
export { METADATA_STORE_KEY } from '../metadata/store.js';
export type { MetadataStore, PendingMetadataWrite, StoredMetadata } from '../metadata/store.js';
export { functionsNamed } from '../metadata/catalog-diff.js';
export { fieldKind } from '../schema-cache/permissions/operators.js';
export { parsePermission, parsePermissionType } from '../metadata/permission-parse.js';
export { validateBoolExp } from '../schema-cache/permissions/validate.js';
export { PermissionValidationError, checkValue, comparedType, isSessionVariable } from '../schema-cache/permissions/values.js';
export { qualifiedTableName, emptyMetadata, METADATA_KEY_ORDER } from '../metadata/types.js';
export type * from '../metadata/types.js';

// ---- Database kinds -------------------------------------------------------------------------
export type {
  DatabaseKind,
  KindCapabilities,
  KindCapability,
  SourceConnection,
  SourceHealth,
  CompiledStatement,
  CompiledMutation,
  MutationRun,
  PoolStats,
  MultiplexedStatement,
  CohortInput,
  CohortOutput,
  ChangeFeed,
  ChangeFeedListener,
  RunOptions,
  EnumValueRow,
  RelationshipCheck,
} from '../db/contract.js';
export { ScalarTypes, scalarTypesOf } from '../db/scalar-types.js';
export type { ScalarTypeTable, ScalarInfo, JsonLiteral } from '../db/scalar-types.js';
export { databaseKinds, findDatabaseKind, requireDatabaseKind } from '../db/registry.js';
export { tableKey, tableOfKey, indexCatalog } from '../db/catalog.js';
export type * from '../db/catalog.js';
export type * from '../db/operators.js';
export type { RawSqlOptions, RawSqlResult } from '../db/raw-sql.js';

// ---- SQL building blocks (for database kinds compiling the IR to SQL) -------------------------
// Kind-neutral: each takes what differs between dialects (quoting, placeholders, constant
// conditions, comparisons) from the kind; db/mariadb and db/mssql are built on them.
export { SlotList as SqlSlotList, paramSlot, renderSlots, pagingValue, pagingParam, similarToRegex, booleanText, checkName as checkSqlName, slotMarker, excludedMarker, PROGRAM_MARKERS } from './sql/slots.js';
export type { Rendered as RenderedSql, BaseParamUse } from './sql/slots.js';
export { SqlCompileContext, graphqlName } from './sql/context.js';
export type { NotNullColumn } from './sql/context.js';
export { BoolExpSql, COMPARISON_OPERATORS } from './sql/bool-exp.js';
export type { AnySqlContext, BoolExpDialect, JoinSpec, KindOperatorIR, Scope as SqlScope } from './sql/bool-exp.js';
export { OrderSql } from './sql/order.js';
export type { DerivedOrder, OrderDialect } from './sql/order.js';
export { CompiledMutationProgram, planMutation } from './sql/mutation-plan.js';
export type * from './sql/mutation-plan.js';
export { MutationProgramRun } from './sql/mutation-run.js';
export type { Affected, BoundSql, KeyRow, Row as SqlRow, TableKeys } from './sql/mutation-run.js';

// ---- Query and mutation IR ------------------------------------------------------------------
export type * from '../graphql/ir.js';
export { aggregatePredicatesOf, PAIR_ARGUMENTS, type AggregatePredicateFacts, type AggregatePredicateFn, type AggregatePredicateSignature } from '../graphql/aggregate-predicates.js';
export type * from '../graphql/ir-mutation.js';
export { returningSelect } from '../graphql/ir-mutation.js';

// ---- Schema cache and schema drafts ---------------------------------------------------------
export type { SchemaCache } from '../schema-cache/cache.js';
export type { SchemaCacheRef } from '../schema-cache/ref.js';
export { perSnapshot } from '../schema-cache/memo.js';
export type { SourceConnections } from '../schema-cache/connections.js';
export type {
  ResolvedColumn,
  ResolvedRelationship,
  ResolvedTable,
  ResolvedFunction,
  ResolvedFunctionArg,
  ResolvedComputedField,
  ResolvedSource,
  TablePermissions,
  TableRootFieldNames,
} from '../schema-cache/model.js';
export {
  computedFieldObjectName,
  copyResolvedTable,
  defaultIdentifier,
  functionObjectName,
  isGraphQLName,
  namingConventionOf,
  parseRelationshipUsing,
  permissionObjectName,
  relationshipRefusal,
  relationshipObjectName,
  rootFieldNames,
  tableObjectName,
} from '../schema-cache/resolve/index.js';
export { ROOT_FIELD_KINDS, customRootFieldName } from '../schema-cache/resolve/naming.js';
export { englishList, notGraphQLName } from '../schema-cache/resolve/table.js';
export { tableInconsistency } from '../schema-cache/resolve/inconsistency.js';
export type { RelationshipEnv, RelationshipRule } from '../schema-cache/resolve/index.js';
export { addSourceToDraft } from '../graphql/schema/index.js';
export type { AddSourceOptions } from '../graphql/schema/index.js';
// Root fields whose configs are made when a request first reaches them (many root fields, few read per request).
export { emptySchemaDraft, lazyRootEntry, RootFieldConfig } from '../graphql/schema-draft.js';
export { schemaKit } from '../graphql/schema/extra-fields.js';
export { scalarType, IR_SCALARS } from '../graphql/scalars.js';
export { buildAggregateSelect, buildSelect } from '../graphql/plan/select.js';
export { selectionForType } from '../graphql/plan/abstract-selection.js';
export type { CollectedField } from '../graphql/plan/selection.js';
export type { TableView, ColumnView } from '../graphql/plan/view.js';
export type {
  SchemaDraft,
  SchemaBuildContext,
  PlanContext,
  RootFieldEntry,
  RootFieldPlanner,
  DbRootFieldPlanner,
  NamespacePlanner,
  RoleSchema,
  RemoteRootFieldPlanner,
  RemoteFieldPart,
  RemoteFieldGroup,
  ExtraTableField,
  SchemaKit,
  TableFieldExtension,
} from '../graphql/schema-draft.js';
// Table types and selects of a role, for plugins whose own types link to tables (action outputs).
export { registryFor, TypeRegistry } from '../graphql/schema/registry.js';
export { objectType, selectArgs } from '../graphql/schema/objects.js';
export { buildTableViews } from '../graphql/schema/views.js';
export { Naming, namingOf } from '../graphql/schema/naming.js';

// ---- Planning helpers (query IR from GraphQL-like input) ------------------------------------
export { and, andMaybe, not, or } from '../graphql/plan/bool.js';
export { buildPermissionFilter } from '../graphql/plan/bool-exp.js';
export { jsonInput, leafValue } from '../graphql/plan/input.js';
export { sessionVariablesOfQuery } from '../graphql/plan/session-variables.js';
export { argumentsOf, collectFieldNodes, collectFields, subSelection } from '../graphql/plan/selection.js';
// For APIs with schemas of their own over the same tables (Relay): arguments and fields of a view.
export { buildWhere } from '../graphql/plan/bool-exp.js';
export { buildOrderBy } from '../graphql/plan/order-by.js';
export { buildFields } from '../graphql/plan/select.js';
export { listItems, present, toJson, validationError } from '../graphql/plan/input.js';
export type { Input } from '../graphql/plan/input.js';
export { boolExpType, orderByType, selectColumnEnum } from '../graphql/schema/inputs.js';
export type { RelationshipView, ComputedFieldView, FunctionView } from '../graphql/plan/view.js';
export { functionViews } from '../graphql/schema/function-views.js';
export { argsArgument, withArgs } from '../graphql/schema/function-types.js';
export { ARGS_FIELD, buildCall } from '../graphql/plan/function.js';

// ---- Execution (for API plugins) ------------------------------------------------------------
export { GraphQLExecutor, bindParams } from '../graphql/execute/executor.js';
export type { ExecutionMeta, ExecutorLimits, SchemaFlavour } from '../graphql/execute/executor.js';
export { fillJoins, joinShapeOfQuery } from '../graphql/execute/remote-joins.js';
export type { JoinShape } from '../graphql/execute/remote-joins.js';
export { whenActive } from '../graphql/execute/limits.js';
export { LimitGate, tapLimit } from '../graphql/execute/limit-pass.js';
export type { LimitCheck, LimitPass, LimitTap } from '../graphql/execute/limit-pass.js';
export type { ActivePredicate } from '../graphql/execute/limits.js';
export { parseDocument, validateDocument } from '../graphql/execute/validate.js';
export { sessionVariablesOf } from '../graphql/execute/mutation.js';
export { parseGraphQLHttpBody, parseGraphQLQueryString, parseGraphQLRequest } from '../graphql/execute/request.js';
export type { GraphQLHttpRequest, GraphQLRequest } from '../graphql/execute/request.js';
export { graphqlErrorJson } from '../graphql/execute/errors.js';
export { isLosslessInteger, isLosslessNumber, parseLossless, stringifyLossless, unmarkLossless } from '../lossless-json.js';
export { explainRequest, parseExplainBody } from '../graphql/execute/explain.js';

// ---- HTTP -----------------------------------------------------------------------------------
export { authenticate, authenticateNow, authenticateRequest } from '../http/auth.js';
export { parseJsonBody, readJsonBody, readJsonRequest, readRawBody, requireJsonContentType } from '../http/body.js';
export { ProvidedFeatures } from '../features/index.js';
export { showInternalTo, toEngineError, errorBody } from '../http/error-response.js';
export { originMatcher } from '../http/cors.js';
export { logHttp, requestIdOf } from '../http/raw-routes.js';
export type { UpgradeHandler } from '../http/raw-routes.js';

// ---- Subscriptions (for transports) ---------------------------------------------------------
export { SubscriptionManager, FirstRunError } from '../subscriptions/manager.js';
export type { SubscriptionHandle, SubscriptionStats } from '../subscriptions/manager.js';
export type { SubscriberSink } from '../subscriptions/poller.js';
export { metadataRoute } from '../http/metadata-route.js';
export type { AppRouterState } from '../http/types.js';
export type { RawRoutes, RawRequest, RawResponse, RawHandler } from '../http/raw-routes.js';
export { OutgoingHttp, OutgoingCallError, DEFAULT_MAX_RESPONSE_BYTES } from '../http/outgoing.js';
export type { OutgoingRequest, OutgoingResponse, OutgoingHttpOptions, OutgoingFailureKind } from '../http/outgoing.js';

// ---- Event triggers and webhooks --------------------------------------------------------------
export { TRIGGER_OPERATIONS } from '../db/event-triggers.js';
export type * from '../db/event-triggers.js';
export type { MetadataApplyContext } from '../hooks.js';
export {
  DEFAULT_RETRY_CONF,
  MAX_TRIGGER_NAME_LENGTH,
  columnsNamedBy,
  parseCreateEventTriggerArgs,
  parseStoredEventTrigger,
} from '../metadata/event-trigger-definition.js';
export type { CleanupConfig, EventTriggerConf, OperationSpec, RetryConf } from '../metadata/event-trigger-definition.js';
export { eventTriggerObjectName } from '../schema-cache/resolve/event-triggers.js';
export type { ResolvedEventTrigger } from '../schema-cache/resolve/event-triggers.js';
export * from '../webhooks/index.js';
