/**
 * The reference engine's check after a metadata change (`buildSchemaCacheFor`): rebuild, and if
 * the object the operation touched became inconsistent, fail with its reasons as an
 * `invalid-configuration` error (the objects in `internal`). Other new inconsistencies are left to
 * the metadata service, which refuses to persist them.
 */
import { EngineError } from '../errors.js';
import { ARGS_PATH } from './args.js';
import type { OperationContext } from './operation.js';
import type { InconsistentObject } from './types.js';

export async function newInconsistenciesOf(ctx: OperationContext, objectNames: readonly string[]): Promise<InconsistentObject[]> {
  const before = new Set(ctx.cache.inconsistentObjects.map((o) => o.name));
  const preview = await ctx.rebuildPreview();
  const wanted = new Set(objectNames);
  return preview.inconsistentObjects.filter((o) => wanted.has(o.name) && !before.has(o.name));
}

export async function assertConsistent(ctx: OperationContext, objectNames: readonly string[]): Promise<void> {
  const found = await newInconsistenciesOf(ctx, objectNames);
  if (found.length === 0) return;
  throw new EngineError('invalid-configuration', found.map((o) => o.reason).join(', '), { path: ARGS_PATH, internal: found });
}
