/**
 * Tracking, untracking and customizing functions. Tracking checks what the reference checks
 * before rebuilding (not tracked yet, no tracked table of the same name) and then rebuilds: the
 * resolver's checks (the function exists once, returns a tracked table's rows, ...) fail the
 * operation with `invalid-configuration` and the inconsistent object, as `buildSchemaCacheFor`
 * does.
 */
import {
  ARGS_PATH,
  type ArgsObject,
  assertConsistent,
  EngineError,
  findTable,
  type FunctionConfiguration,
  type FunctionMetadata,
  functionObjectName,
  type OperationContext,
  type OperationResult,
  optionalString,
  type QualifiedFunction,
  requireKey,
  requireSourceOfKind,
  sameTable,
  type SourceMetadata,
  sourceNameArg,
  SUCCESS,
} from '../../../core/sdk/index.js';
import { functionOf, parseConfiguration, quotedFunction } from './parse.js';

export interface FunctionTarget {
  source: SourceMetadata;
  fn: QualifiedFunction;
}

export function functionTarget(ctx: OperationContext, args: ArgsObject, prefix: string, legacy: boolean): FunctionTarget {
  const fn = functionOf(args, legacy);
  const source = requireSourceOfKind(ctx.draft, sourceNameArg(args, ARGS_PATH), ctx.dbKind(prefix), ARGS_PATH);
  return { source, fn };
}

export const findFunction = (source: SourceMetadata, fn: QualifiedFunction): FunctionMetadata | undefined =>
  (source.functions ?? []).find((f) => sameTable(f.function, fn));

/** A tracked function, else the reference's `not-exists` for a function missing from its cache. */
export function requireFunction(t: FunctionTarget): FunctionMetadata {
  const found = findFunction(t.source, t.fn);
  if (!found) throw new EngineError('not-exists', `function ${quotedFunction(t.fn)} not found in the cache`, { path: ARGS_PATH });
  return found;
}

/** The stored entry, in the reference's export order: function, configuration, permissions, comment. */
function entry(fn: QualifiedFunction, configuration: FunctionConfiguration | undefined, comment: string | undefined): FunctionMetadata {
  const out: FunctionMetadata = { function: { schema: fn.schema, name: fn.name } };
  if (configuration) out.configuration = configuration;
  if (comment !== undefined) out.comment = comment;
  return out;
}

export async function trackFunction(
  ctx: OperationContext,
  t: FunctionTarget,
  configuration: FunctionConfiguration | undefined,
  comment: string | undefined,
): Promise<OperationResult> {
  if (findFunction(t.source, t.fn)) {
    throw new EngineError('already-tracked', `function already tracked: ${quotedFunction(t.fn)}`, { path: ARGS_PATH });
  }
  if (findTable(t.source, t.fn)) {
    throw new EngineError('not-supported', `table with name ${quotedFunction(t.fn)} already exists`, { path: ARGS_PATH });
  }
  t.source.functions = [...(t.source.functions ?? []), entry(t.fn, configuration, comment)];
  ctx.markChanged();
  await assertConsistent(ctx, [functionObjectName(t.source.name, t.fn)]);
  return SUCCESS;
}

/** `pg_track_function` and v2 `track_function`: `{function, configuration?, comment?, source?}`. */
export function trackFunctionV2(ctx: OperationContext, args: ArgsObject, prefix: string, legacy: boolean): Promise<OperationResult> {
  const t = functionTarget(ctx, args, prefix, legacy);
  const configuration = parseConfiguration(args.configuration, `${ARGS_PATH}.configuration`);
  return trackFunction(ctx, t, configuration, optionalString(args, 'comment', ARGS_PATH));
}

export async function untrackFunction(ctx: OperationContext, args: ArgsObject, prefix: string, legacy: boolean): Promise<OperationResult> {
  const t = functionTarget(ctx, args, prefix, legacy);
  requireFunction(t);
  // Its permissions live in its entry and go with it.
  t.source.functions = (t.source.functions ?? []).filter((f) => !sameTable(f.function, t.fn));
  if (t.source.functions.length === 0) delete t.source.functions;
  ctx.markChanged();
  return SUCCESS;
}

/** Replaces the whole configuration, keeping permissions and comment. */
export async function setFunctionCustomization(ctx: OperationContext, args: ArgsObject, prefix: string): Promise<OperationResult> {
  const t = functionTarget(ctx, args, prefix, false);
  const configuration = parseConfiguration(requireKey(args, 'configuration', ARGS_PATH), `${ARGS_PATH}.configuration`);
  const meta = requireFunction(t);
  const next: FunctionMetadata = { function: meta.function };
  if (configuration) next.configuration = configuration;
  if (meta.permissions) next.permissions = meta.permissions;
  if (meta.comment !== undefined) next.comment = meta.comment;
  t.source.functions = (t.source.functions ?? []).map((f) => (f === meta ? next : f));
  ctx.markChanged();
  await assertConsistent(ctx, [functionObjectName(t.source.name, t.fn)]);
  return SUCCESS;
}
