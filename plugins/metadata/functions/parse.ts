/**
 * Arguments of the function operations, with the reference engine's parse errors: a function
 * name (`"f"` or `{schema, name}`), a `configuration` (`session_argument`, `exposed_as`,
 * `custom_root_fields`, `custom_name`), and the stored form of a configuration, which keeps the
 * reference's export shape (its key order, `custom_root_fields` always present once anything is
 * configured).
 */
import {
  ARGS_PATH,
  type ArgsObject,
  expectObject,
  type FunctionConfiguration,
  isGraphQLName,
  jsonTypeName,
  optionalString,
  parseFailed,
  parseTableName,
  type QualifiedFunction,
  qualifiedTableName,
  requireKey,
} from '../../../core/sdk/index.js';

export const quotedFunction = (f: QualifiedFunction): string => `"${qualifiedTableName(f)}"`;

export function functionName(value: unknown, path: string): QualifiedFunction {
  return parseTableName(value, path);
}

/** `function` (R), or (legacy forms without it) the args themselves naming the function. */
export function functionOf(args: ArgsObject, legacy: boolean): QualifiedFunction {
  if (legacy && !('function' in args)) return functionName(args, ARGS_PATH);
  return functionName(requireKey(args, 'function', ARGS_PATH), `${ARGS_PATH}.function`);
}

function graphqlName(obj: ArgsObject, key: string, path: string): string | undefined {
  const v = optionalString(obj, key, path);
  if (v !== undefined && !isGraphQLName(v)) throw parseFailed(`${JSON.stringify(v)} is not a valid GraphQL name`, `${path}.${key}`);
  return v;
}

function exposedAs(obj: ArgsObject, path: string): FunctionConfiguration['exposed_as'] {
  const v = obj.exposed_as;
  if (v === undefined || v === null) return undefined;
  if (v === 'query' || v === 'mutation') return v;
  const found = typeof v === 'string' ? `tag '${v}'` : jsonTypeName(v);
  throw parseFailed(`expected one of the tags ['query', 'mutation'], but found ${found}`, `${path}.exposed_as`);
}

/** A configuration in its stored form; undefined when nothing is configured. */
export function parseConfiguration(value: unknown, path: string): FunctionConfiguration | undefined {
  if (value === undefined || value === null) return undefined;
  const obj = expectObject(value, path);
  const session = optionalString(obj, 'session_argument', path);
  const exposed = exposedAs(obj, path);
  const customName = graphqlName(obj, 'custom_name', path);
  const rootsAt = `${path}.custom_root_fields`;
  const rootsIn = obj.custom_root_fields === undefined || obj.custom_root_fields === null ? {} : expectObject(obj.custom_root_fields, rootsAt);
  const fn = graphqlName(rootsIn, 'function', rootsAt);
  const agg = graphqlName(rootsIn, 'function_aggregate', rootsAt);
  if (fn !== undefined && fn === agg) throw parseFailed(`the following custom root field names are duplicated: "${fn}" and "${agg}"`, rootsAt);

  const roots: NonNullable<FunctionConfiguration['custom_root_fields']> = {};
  if (fn !== undefined) roots.function = fn;
  if (agg !== undefined) roots.function_aggregate = agg;
  if (session === undefined && exposed === undefined && customName === undefined && Object.keys(roots).length === 0) return undefined;
  const out: FunctionConfiguration = {};
  if (session !== undefined) out.session_argument = session;
  if (exposed !== undefined) out.exposed_as = exposed;
  out.custom_root_fields = roots;
  if (customName !== undefined) out.custom_name = customName;
  return out;
}
