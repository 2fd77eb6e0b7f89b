/**
 * What `onRequestLimit` enforcers see, and how they say when they have work. Most deployments set
 * no limit at all, and the hook's taps are there whether or not their metadata asks for anything;
 * running them would cost every request a context object and a promise per tap. So an enforcer
 * declares when it has work (`whenActive`, a predicate over a schema-cache snapshot), and the gate
 * (./limit-pass.ts) skips the hook for snapshots where none is active. A tap without a declaration
 * is always active: third-party enforcers need not know.
 */
import { asValue, type AwilixContainer } from 'awilix';
import type { AsyncSeriesHook } from 'tapable';
import type { DocumentNode, FragmentDefinitionNode, OperationDefinitionNode } from 'graphql';
import type { Session } from '../../auth/session.js';
import type { SchemaCache } from '../../schema-cache/cache.js';

/** The operation a limit check is about: parsed and validated once, shared through the plan cache. */
export interface LimitedOperation {
  /** The whole request document (every operation and fragment in the query text). */
  readonly document: DocumentNode;
  /** The operation that runs. */
  readonly definition: OperationDefinitionNode;
  readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  readonly kind: 'query' | 'mutation' | 'subscription';
}

/**
 * What an API-limit enforcer sees: one GraphQL operation after authentication, before it runs.
 * The executor calls the hook once per operation (each operation of a batch, a REST endpoint's
 * query, a query over a websocket), so every transport passes the same checks.
 */
export interface LimitContext {
  readonly session: Session;
  /** Which transport asked: `graphql` (HTTP), `rest`, `websocket`. */
  readonly endpoint: string;
  /** Operations in the request this one came in (a batch has several; everything else one). */
  readonly operationCount: number;
  readonly ip: string;
  readonly operation: LimitedOperation;
  /** The schema-cache snapshot the operation runs against (its metadata holds the limits). */
  readonly cache: SchemaCache;
  /**
   * Seconds the operation may run; the time-limit enforcer sets it and the executor cancels the
   * operation's statements past it. Undefined: no limit.
   */
  timeLimitSeconds: number | undefined;
}

/** The one hook the executor and the gate use (the kernel's hooks have it). */
export interface LimitHooks {
  readonly onRequestLimit: AsyncSeriesHook<[LimitContext]>;
}

export type ActivePredicate = (cache: SchemaCache) => boolean;

const ACTIVATIONS_KEY = 'limitActivations';

/** The `whenActive` declarations of a container, by tap name. */
export function activationsOf(container: AwilixContainer): Map<string, ActivePredicate> {
  if (!container.hasRegistration(ACTIVATIONS_KEY)) container.register(ACTIVATIONS_KEY, asValue(new Map<string, ActivePredicate>()));
  return container.resolve<Map<string, ActivePredicate>>(ACTIVATIONS_KEY);
}

/** Declares when the `onRequestLimit` tap named `tapName` (the plugin id) has anything to check. */
export function whenActive(container: AwilixContainer, tapName: string, predicate: ActivePredicate): void {
  activationsOf(container).set(tapName, predicate);
}
