/**
 * Registers a metadata plugin's operations: `<prefix>_<name>` on /v1/metadata for each database
 * kind prefix, and the legacy `<name>` on /v1/query (the first relational kind). A handler answers
 * only on its own endpoint, so a legacy name sent to /v1/metadata stays an unknown operation.
 */
import type { KernelHooks } from '../hooks.js';
import { argsObject, LEGACY_PREFIX, type ArgsObject } from './args.js';
import type { MetadataEndpoint, MetadataOperation, OperationContext, OperationResult } from './operation.js';

export type PrefixedHandler = (
  ctx: OperationContext,
  args: ArgsObject,
  prefix: string,
  op: MetadataOperation,
) => Promise<OperationResult>;

export interface OperationSet {
  /** Handlers by name without prefix, tapped as `<prefix>_<name>` on /v1/metadata. */
  prefixed: Readonly<Record<string, PrefixedHandler>>;
  prefixes: readonly string[];
  /** Handlers tapped by their own name on /v1/query; defaults to the prefixed set. */
  legacy?: Readonly<Record<string, PrefixedHandler>>;
}

export function tapOperations(hooks: KernelHooks, pluginId: string, set: OperationSet): void {
  const tap = (type: string, endpoint: MetadataEndpoint, prefix: string, handler: PrefixedHandler) =>
    hooks.onMetadataOperation
      .for(type)
      .tapPromise(pluginId, async (op, ctx) => (ctx.endpoint === endpoint ? handler(ctx, argsObject(op.args), prefix, op) : undefined));
  for (const [name, handler] of Object.entries(set.prefixed)) {
    for (const prefix of set.prefixes) tap(`${prefix}_${name}`, 'metadata', prefix, handler);
  }
  for (const [name, handler] of Object.entries(set.legacy ?? set.prefixed)) tap(name, 'query', LEGACY_PREFIX, handler);
}
