/**
 * `pg_create_function_permission` / `pg_drop_function_permission`: a role may call a function
 * explicitly (needed for VOLATILE ones, and for all with `--infer-function-permissions=false`).
 * As in the reference, creating one needs the role's select permission on the function's table.
 */
import {
  ARGS_PATH,
  type ArgsObject,
  catalogIfAvailable,
  EngineError,
  findTable,
  type FunctionMetadata,
  functionsNamed,
  type OperationContext,
  type OperationResult,
  parseFailed,
  quotedTable,
  requireString,
  SUCCESS,
} from '../../../core/sdk/index.js';
import { findFunction, functionTarget, requireFunction, type FunctionTarget } from './track.js';
import { quotedFunction } from './parse.js';

function roleArg(args: ArgsObject): string {
  const role = requireString(args, 'role', ARGS_PATH);
  if (role === '') throw parseFailed('empty string not allowed', `${ARGS_PATH}.role`);
  return role;
}

const inSource = (role: string, t: FunctionTarget, what: string): string =>
  `permission of role "${role}" ${what} for function ${quotedFunction(t.fn)} in source: "${t.source.name}"`;

export async function createFunctionPermission(ctx: OperationContext, args: ArgsObject, prefix: string, legacy: boolean): Promise<OperationResult> {
  const role = roleArg(args);
  const t = functionTarget(ctx, args, prefix, legacy);
  const meta = requireFunction(t);
  if ((meta.permissions ?? []).some((p) => p.role === role)) {
    throw new EngineError('already-exists', inSource(role, t, 'already exists'), { path: ARGS_PATH });
  }
  const catalog = await catalogIfAvailable(ctx, t.source.name);
  const returns = catalog ? functionsNamed(catalog, t.fn)[0]?.returnsTable ?? null : null;
  const table = returns ? findTable(t.source, returns) : undefined;
  if (!returns || !table) {
    const name = returns ? quotedTable(returns) : quotedFunction(t.fn);
    throw new EngineError('not-exists', `function's return table ${name} not found in the cache`, { path: ARGS_PATH });
  }
  if (!(table.select_permissions ?? []).some((p) => p.role === role)) {
    throw new EngineError(
      'not-supported',
      `function permission can only be added when the function's return table ${quotedTable(returns)} has select permission configured for role: "${role}"`,
      { path: ARGS_PATH },
    );
  }
  replace(t, meta, [...(meta.permissions ?? []), { role }]);
  ctx.markChanged();
  return SUCCESS;
}

/** The entry with new permissions, keys kept in the reference's export order. */
function replace(t: FunctionTarget, meta: FunctionMetadata, permissions: Array<{ role: string }>): void {
  const next: FunctionMetadata = { function: meta.function };
  if (meta.configuration) next.configuration = meta.configuration;
  if (permissions.length > 0) next.permissions = permissions;
  if (meta.comment !== undefined) next.comment = meta.comment;
  t.source.functions = (t.source.functions ?? []).map((f) => (f === meta ? next : f));
}

export async function dropFunctionPermission(ctx: OperationContext, args: ArgsObject, prefix: string, legacy: boolean): Promise<OperationResult> {
  const role = roleArg(args);
  const t = functionTarget(ctx, args, prefix, legacy);
  // The reference looks only for the permission, so an untracked function gets the same answer.
  const meta = findFunction(t.source, t.fn);
  if (!meta || !(meta.permissions ?? []).some((p) => p.role === role)) {
    throw new EngineError('not-exists', inSource(role, t, 'does not exist'), { path: ARGS_PATH });
  }
  replace(t, meta, (meta.permissions ?? []).filter((p) => p.role !== role));
  ctx.markChanged();
  return SUCCESS;
}
