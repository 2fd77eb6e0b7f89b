/**
 * Decoding the legacy DML args. The reference decodes them as one JSON value before looking at
 * anything, so its decoding errors are reported relative to the args object itself (`$`,
 * `$.limit`: "key \"where\" not found" at `$`), while later checks use `$.args...` paths.
 */
import { type ArgsObject, isPlainObject, jsonTypeName, parseFailed, requireKey } from '../../../core/sdk/index.js';

/** Root of decoding-error paths. */
export const DECODE = '$';

/** `base.key`, or `base['$set']` for keys that are not identifiers (the reference's spelling). */
export const keyPath = (base: string, key: string): string =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${base}.${key}` : `${base}['${key}']`;

export function optionalInt(args: ArgsObject, key: string, base = DECODE): number | null {
  const v = args[key];
  if (v === undefined || v === null) return null;
  const at = keyPath(base, key);
  if (typeof v !== 'number') throw parseFailed(`parsing Int failed, expected Number, but encountered ${jsonTypeName(v)}`, at);
  if (!Number.isInteger(v)) throw parseFailed(`parsing Int failed, unexpected floating number ${v}`, at);
  return v;
}

export function stringList(value: unknown, path: string): string[] {
  if (!Array.isArray(value)) throw parseFailed(`expected Array, but encountered ${jsonTypeName(value)}`, path);
  return value.map((v, i) => {
    if (typeof v !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(v)}`, `${path}[${i}]`);
    return v;
  });
}

export function optionalStringList(args: ArgsObject, key: string, base = DECODE): string[] | null {
  const v = args[key];
  return v === undefined || v === null ? null : stringList(v, keyPath(base, key));
}

export function objectArg(args: ArgsObject, key: string, path: string): ArgsObject {
  const v = args[key];
  if (!isPlainObject(v)) throw parseFailed(`expected Object, but encountered ${jsonTypeName(v)}`, path);
  return v;
}

/** An optional object argument (`$set`, `where` of a count); null when absent. */
export function optionalObject(args: ArgsObject, key: string): ArgsObject | null {
  const v = args[key];
  if (v === undefined || v === null) return null;
  return objectArg(args, key, keyPath(DECODE, key));
}

export function requiredObject(args: ArgsObject, key: string): ArgsObject {
  requireKey(args, key, DECODE);
  return objectArg(args, key, keyPath(DECODE, key));
}
