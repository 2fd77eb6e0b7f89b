/**
 * A subscription's plan: the planned root steps turned into the fields of ONE multiplexed
 * statement against ONE source, compiled once per compiled operation and shared by every
 * subscriber of the same text and shape. Refusals use the reference engine's messages.
 */
import { EngineError } from '../errors.js';
import type { MultiplexedStatement, SourceConnection } from '../db/contract.js';
import type { CompileOptions, SubscriptionFieldIR, TableRef, TypedValueIR } from '../graphql/ir.js';
import type { CompiledOperation, RootStep } from '../graphql/execute/plan.js';
import { subscriptionReads } from './reads.js';

export interface SubscriptionPlan {
  source: string;
  connection: SourceConnection;
  statement: MultiplexedStatement;
  /** Tables the statement reads; null when they cannot be known (function calls). */
  tables: TableRef[] | null;
  sessionVariables: string[] | 'all';
  /** Streams: the value each subscriber's cursor starts from. */
  initialCursor: TypedValueIR | null;
}

const plans = new WeakMap<CompiledOperation, SubscriptionPlan>();

export function subscriptionPlan(compiled: CompiledOperation, options: CompileOptions): SubscriptionPlan {
  let plan = plans.get(compiled);
  if (!plan) {
    plan = buildPlan(compiled.steps, options);
    plans.set(compiled, plan);
  }
  return plan;
}

function buildPlan(steps: readonly RootStep[], options: CompileOptions): SubscriptionPlan {
  let target: { source: string; connection: SourceConnection } | null = null;
  let initialCursor: TypedValueIR | null = null;
  const toFields = (list: readonly RootStep[]): SubscriptionFieldIR[] =>
    list.map((step): SubscriptionFieldIR => {
      switch (step.kind) {
        case 'typename':
          return { kind: 'typename', key: step.key, value: step.value };
        case 'namespace':
          return { kind: 'namespace', key: step.key, fields: toFields(step.steps) };
        case 'live':
          if (target && target.source !== step.source) {
            throw new EngineError('not-supported', 'all fields of a subscription must be from the same source', { path: '$' });
          }
          target ??= { source: step.source, connection: step.connection };
          if (step.field.kind === 'stream') initialCursor = step.field.ir.cursor.initial;
          return step.field;
        case 'introspection':
          throw new EngineError('not-supported', 'introspection fields are not supported in subscriptions', { path: '$' });
        case 'remote':
          throw new EngineError('not-supported', 'subscription to remote server is not supported', { path: '$' });
        case 'db':
        case 'mutation':
          throw new EngineError('unexpected', `a ${step.kind} step in a subscription plan`);
      }
    });
  const fields = toFields(steps);
  // Several root fields (@_multiple_top_level_fields) share one statement; a stream's cursor
  // cannot be shared with anything, so a stream stays alone.
  if (initialCursor !== null && steps.length > 1) {
    throw new EngineError('not-supported', 'a streaming subscription must select one top level field', { path: '$' });
  }
  const found = target as { source: string; connection: SourceConnection } | null;
  if (!found) throw new EngineError('validation-failed', 'a subscription must select at least one field of a database source', { path: '$' });
  const conn = found.connection;
  if (!conn.compileMultiplexed || !conn.runMultiplexed) {
    throw new EngineError('not-supported', `subscriptions are not supported on source "${found.source}"`, { path: '$' });
  }
  const reads = subscriptionReads(fields);
  return {
    source: found.source,
    connection: conn,
    statement: conn.compileMultiplexed(fields, options),
    tables: reads.tables,
    sessionVariables: reads.sessionVariables,
    initialCursor,
  };
}
