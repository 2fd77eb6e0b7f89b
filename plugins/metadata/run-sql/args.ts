/** The arguments of `run_sql`, with the reference engine's defaults and parse errors. */
import {
  ARGS_PATH,
  argsObject,
  jsonTypeName,
  optionalBoolean,
  parseFailed,
  requireString,
  sourceNameArg,
} from '../../../core/sdk/index.js';

export interface RunSqlArgs {
  sql: string;
  source: string;
  cascade: boolean;
  /** Absent: decided from the SQL text (see `needsMetadataCheck`). */
  checkMetadataConsistency: boolean | undefined;
  readOnly: boolean;
}

export function parseRunSqlArgs(raw: unknown): RunSqlArgs {
  const args = argsObject(raw);
  const check = args['check_metadata_consistency'];
  if (check !== undefined && check !== null && typeof check !== 'boolean') {
    throw parseFailed(`expected Boolean, but encountered ${jsonTypeName(check)}`, `${ARGS_PATH}.check_metadata_consistency`);
  }
  return {
    sql: requireString(args, 'sql', ARGS_PATH),
    source: sourceNameArg(args, ARGS_PATH),
    cascade: optionalBoolean(args, 'cascade', ARGS_PATH, false),
    checkMetadataConsistency: typeof check === 'boolean' ? check : undefined,
    readOnly: optionalBoolean(args, 'read_only', ARGS_PATH, false),
  };
}

/**
 * The reference engine's heuristic: diffing the schema costs two introspections and a rebuild, so
 * without an explicit `check_metadata_consistency` it is done only when the SQL contains a word
 * that can change what metadata depends on. A read-only transaction cannot change the schema.
 */
const SCHEMA_CHANGING = /\balter\b|\bdrop\b|\breplace\b|\bcreate function\b|\bcomment on\b/i;

export function needsMetadataCheck(args: RunSqlArgs): boolean {
  if (args.readOnly) return false;
  return args.checkMetadataConsistency ?? SCHEMA_CHANGING.test(args.sql);
}
