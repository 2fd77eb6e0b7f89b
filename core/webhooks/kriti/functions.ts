/**
 * The template language's built-in functions (one argument each), plus `getSessionVariable`,
 * which the engine adds. A function applied to a value it cannot handle is a "Function Error".
 */
import type { Json, Pos } from './ast.js';
import { KritiError } from './errors.js';

type Fn = (arg: Json, pos: Pos) => Json;

const isObject = (v: Json): v is { [key: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(name: string, pos: Pos, what: string): never {
  throw new KritiError('Function Error', `${name}: ${what}`, pos);
}

function stringOf(name: string, v: Json, pos: Pos): string {
  if (typeof v !== 'string') fail(name, pos, 'expected a string');
  return v;
}

function titleCase(s: string): string {
  return s.replace(/\S+/g, (w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase());
}

export const FUNCTIONS: Readonly<Record<string, Fn>> = {
  empty: (v) => {
    if (v === null) return true;
    if (Array.isArray(v) || typeof v === 'string') return v.length === 0;
    if (isObject(v)) return Object.keys(v).length === 0;
    if (typeof v === 'number') return v === 0;
    return !v;
  },
  size: (v, pos) => {
    if (Array.isArray(v) || typeof v === 'string') return v.length;
    if (isObject(v)) return Object.keys(v).length;
    if (typeof v === 'number') return v;
    return fail('size', pos, 'expected an array, object, string or number');
  },
  inverse: (v, pos) => {
    if (Array.isArray(v)) return [...v].reverse();
    if (typeof v === 'string') return [...v].reverse().join('');
    if (typeof v === 'number') return v === 0 ? fail('inverse', pos, 'division by zero') : 1 / v;
    if (typeof v === 'boolean') return !v;
    return fail('inverse', pos, 'expected an array, string, number or boolean');
  },
  head: (v, pos) => {
    if (Array.isArray(v)) return v.length > 0 ? v[0]! : fail('head', pos, 'empty array');
    if (typeof v === 'string') return v.length > 0 ? v.charAt(0) : fail('head', pos, 'empty string');
    return fail('head', pos, 'expected an array or string');
  },
  tail: (v, pos) => {
    if (Array.isArray(v)) return v.slice(1);
    if (typeof v === 'string') return v.slice(1);
    return fail('tail', pos, 'expected an array or string');
  },
  toCaseFold: (v, pos) => stringOf('toCaseFold', v, pos).toLowerCase(),
  toLower: (v, pos) => stringOf('toLower', v, pos).toLowerCase(),
  toUpper: (v, pos) => stringOf('toUpper', v, pos).toUpperCase(),
  toTitle: (v, pos) => titleCase(stringOf('toTitle', v, pos)),
  escapeUri: (v, pos) => encodeURIComponent(stringOf('escapeUri', v, pos)).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
  fromPairs: (v, pos) => {
    if (!Array.isArray(v)) return fail('fromPairs', pos, 'expected an array of [key, value] pairs');
    const out: { [key: string]: Json } = {};
    for (const pair of v) {
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string') fail('fromPairs', pos, 'expected an array of [key, value] pairs');
      out[pair[0] as string] = pair[1]!;
    }
    return out;
  },
  toPairs: (v, pos) => (isObject(v) ? Object.entries(v).map(([k, x]) => [k, x]) : fail('toPairs', pos, 'expected an object')),
  removeNulls: (v, pos) => {
    if (Array.isArray(v)) return v.filter((x) => x !== null);
    if (isObject(v)) return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null));
    return fail('removeNulls', pos, 'expected an array or object');
  },
  concat: (v, pos) => {
    if (!Array.isArray(v)) return fail('concat', pos, 'expected an array');
    if (v.every((x) => typeof x === 'string')) return (v as string[]).join('');
    if (v.every((x) => Array.isArray(x))) return (v as Json[][]).flat();
    if (v.every(isObject)) return Object.assign({}, ...v) as Json;
    return fail('concat', pos, 'expected an array of strings, of arrays or of objects');
  },
  not: (v, pos) => (typeof v === 'boolean' ? !v : fail('not', pos, 'expected a boolean')),
};

/** `getSessionVariable("x-svc-user-id")`: case-insensitive lookup in the request's session. */
export function sessionVariableFunction(session: Readonly<Record<string, string>> | null): Fn {
  return (v, pos) => {
    const name = stringOf('getSessionVariable', v, pos).toLowerCase();
    const found = Object.entries(session ?? {}).find(([k]) => k.toLowerCase() === name);
    if (!found) throw new KritiError('Function Error', `Session variable "${v as string}" not found`, pos);
    return found[1];
  };
}
