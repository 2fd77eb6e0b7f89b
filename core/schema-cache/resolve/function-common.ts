/**
 * What tracked functions and computed fields share while being resolved: finding the one
 * function a name denotes, its input arguments as the GraphQL `args` object names them, and the
 * reference engine's way of listing several validation failures in one message.
 */
import type { ScalarTypes } from '../../db/scalar-types.js';
import type { CatalogFunction } from '../../db/catalog.js';
import type { QualifiedFunction } from '../../metadata/types.js';
import { qualifiedTableName } from '../../metadata/types.js';
import type { ResolvedFunctionArg } from '../model.js';
import { quote, ResolveError } from './inconsistency.js';

export const quotedFunction = (f: QualifiedFunction): string => quote(qualifiedTableName(f));

/** The single function of that name: none and several (overloads) are both refused. */
export function singleFunction(candidates: readonly CatalogFunction[] | undefined, fn: QualifiedFunction): CatalogFunction {
  if (!candidates || candidates.length === 0) throw new ResolveError(`no such function exists: ${quotedFunction(fn)}`, 'not-exists');
  if (candidates.length > 1) {
    throw new ResolveError(`function ${quotedFunction(fn)} is overloaded. Overloaded functions are not supported`, 'not-supported');
  }
  return candidates[0]!;
}

/** `because <one>`, or a bulleted list for several, exactly as the reference words it. */
export function reasonMessage(reasons: readonly string[]): string {
  if (reasons.length === 1) return `because ${reasons[0]}`;
  return `for the following reasons:\n${reasons.map((r) => `  • ${r}\n`).join('')}`;
}

/**
 * The function's input arguments in SQL order, all marked `input`; callers re-mark the session
 * and row ones. Unnamed arguments are `arg_1`, `arg_2`, ... counting only those the client
 * supplies, so `skip` lists the positions that are not the client's.
 */
export function functionArgs(fn: CatalogFunction, skip: ReadonlySet<number> = new Set()): ResolvedFunctionArg[] {
  let unnamed = 0;
  return fn.args.map((a, i): ResolvedFunctionArg => {
    const name = a.name ?? null;
    const field = name ?? (skip.has(i) ? `arg_${i + 1}` : `arg_${++unnamed}`);
    const arg: ResolvedFunctionArg = { name, field, type: a.type, hasDefault: a.hasDefault, role: 'input' };
    if (a.typeSchema !== undefined) arg.typeSchema = a.typeSchema;
    if (a.typeKind !== undefined) arg.typeKind = a.typeKind;
    return arg;
  });
}

/** `schema.name` of a type for messages, `public` left out like table names. */
export const typeDisplayName = (a: { type: string; typeSchema?: string }, scalars: ScalarTypes): string => {
  const schema = a.typeSchema ?? scalars.builtInTypeSchema;
  return schema === null ? a.type : qualifiedTableName({ schema, name: a.type });
};

export const isJsonType = (type: string): boolean => type === 'json' || type === 'jsonb';
