/**
 * add_inherited_role and drop_inherited_role (the reference's metadata API, with its checks and
 * messages). Adding a role already there replaces its role set, as the reference does.
 */
import {
  ARGS_PATH,
  assertConsistent,
  EngineError,
  jsonTypeName,
  parseFailed,
  requireKey,
  requireString,
  SUCCESS,
  type ArgsObject,
  type OperationContext,
  type OperationResult,
} from '../../../core/sdk/index.js';
import { FEATURE_DISABLED_MESSAGE, FEATURE_FLAG, inheritedRoleObjectName } from './roles.js';

type Handler = (ctx: OperationContext, args: ArgsObject) => Promise<OperationResult>;

function roleSet(args: ArgsObject): string[] {
  const raw = requireKey(args, 'role_set', ARGS_PATH);
  const at = `${ARGS_PATH}.role_set`;
  if (!Array.isArray(raw)) throw parseFailed(`expected Array, but encountered ${jsonTypeName(raw)}`, at);
  return raw.map((r, i) => {
    if (typeof r !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(r)}`, `${at}[${i}]`);
    return r;
  });
}

const add: Handler = async (ctx, args) => {
  const name = requireString(args, 'role_name', ARGS_PATH);
  const parents = roleSet(args);
  if (!ctx.config.experimentalFeatures.includes(FEATURE_FLAG)) {
    throw new EngineError('constraint-violation', FEATURE_DISABLED_MESSAGE, { path: ARGS_PATH });
  }
  if (parents.includes(name)) {
    throw new EngineError('invalid-params', 'an inherited role name cannot be in the role combination', { path: ARGS_PATH });
  }
  const list = (ctx.draft.inherited_roles ??= []);
  const entry = { role_name: name, role_set: [...new Set(parents)] };
  const at = list.findIndex((r) => r['role_name'] === name);
  if (at === -1) list.push(entry);
  else list[at] = entry;
  ctx.markChanged();
  await assertConsistent(ctx, [inheritedRoleObjectName(name)]);
  return SUCCESS;
};

const drop: Handler = async (ctx, args) => {
  const name = requireString(args, 'role_name', ARGS_PATH);
  const list = ctx.draft.inherited_roles ?? [];
  const at = list.findIndex((r) => r['role_name'] === name);
  if (at === -1) throw new EngineError('not-exists', `"${name}" inherited role doesn't exist`, { path: ARGS_PATH });
  list.splice(at, 1);
  if (list.length === 0) delete ctx.draft.inherited_roles;
  ctx.markChanged();
  return SUCCESS;
};

export const INHERITED_ROLE_OPERATIONS: Readonly<Record<string, Handler>> = {
  add_inherited_role: add,
  drop_inherited_role: drop,
};
