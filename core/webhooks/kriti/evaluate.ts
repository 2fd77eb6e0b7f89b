/**
 * Evaluates a parsed template against its variables (`$body`, `$session_variables`, ...). Values
 * are plain JSON; a missing key is an "Attribute Error" unless reached through `?.` / `?[ ]`,
 * which give null.
 */
import type { Json, Node } from './ast.js';
import { KritiError } from './errors.js';
import { FUNCTIONS, sessionVariableFunction } from './functions.js';

export interface KritiScope {
  variables: Readonly<Record<string, Json>>;
  /** For `getSessionVariable`. */
  session?: Readonly<Record<string, string>> | null;
}

const isObject = (v: Json): v is { [key: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How an interpolated value reads inside a string: strings as they are, the rest as JSON. */
export function renderInString(v: Json): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function evaluate(node: Node, scope: KritiScope): Json {
  const getSession = sessionVariableFunction(scope.session ?? null);
  const run = (n: Node, vars: Readonly<Record<string, Json>>): Json => {
    switch (n.k) {
      case 'literal':
        return n.value;
      case 'object': {
        const out: { [key: string]: Json } = {};
        for (const [k, v] of n.fields) {
          const key = run(k, vars);
          if (typeof key !== 'string') throw new KritiError('Type Error', 'object keys must be strings', k.pos);
          out[key] = run(v, vars);
        }
        return out;
      }
      case 'array':
        return n.items.map((item) => run(item, vars));
      case 'string':
        return n.parts.map((p) => (typeof p === 'string' ? p : renderInString(run(p, vars)))).join('');
      case 'var': {
        if (!(n.name in vars)) throw new KritiError('Name Error', `Variable "${n.name}" is not in scope`, n.pos);
        return vars[n.name]!;
      }
      case 'field': {
        const target = run(n.target, vars);
        if (target === null && n.optional) return null;
        const key = run(n.key, vars);
        if (Array.isArray(target)) {
          if (typeof key !== 'number' || !Number.isInteger(key)) throw new KritiError('Type Error', 'array index must be an integer', n.pos);
          const v = target[key];
          if (v === undefined) {
            if (n.optional) return null;
            throw new KritiError('Attribute Error', `Index ${key} out of range`, n.pos);
          }
          return v;
        }
        if (isObject(target)) {
          if (typeof key !== 'string') throw new KritiError('Type Error', 'object key must be a string', n.pos);
          if (Object.prototype.hasOwnProperty.call(target, key)) return target[key]!;
          if (n.optional) return null;
          throw new KritiError('Attribute Error', `Cannot find key "${key}"`, n.pos);
        }
        if (n.optional) return null;
        throw new KritiError('Type Error', `Cannot look up "${String(key)}" in a value that is not an object or array`, n.pos);
      }
      case 'binary':
        return binary(n, vars);
      case 'not': {
        const v = run(n.operand, vars);
        if (typeof v !== 'boolean') throw new KritiError('Type Error', 'not expects a boolean', n.pos);
        return !v;
      }
      case 'call': {
        const arg = run(n.arg, vars);
        if (n.fn === 'getSessionVariable') return getSession(arg, n.pos);
        const fn = FUNCTIONS[n.fn];
        if (!fn) throw new KritiError('Function Error', `Unknown function "${n.fn}"`, n.pos);
        return fn(arg, n.pos);
      }
      case 'if': {
        for (const [cond, body] of n.branches) {
          const c = run(cond, vars);
          if (typeof c !== 'boolean') throw new KritiError('Type Error', 'a condition must be a boolean', cond.pos);
          if (c) return run(body, vars);
        }
        return run(n.otherwise, vars);
      }
      case 'range': {
        const over = run(n.over, vars);
        const entries: Array<[Json, Json]> = Array.isArray(over)
          ? over.map((v, i) => [i, v])
          : isObject(over)
            ? Object.entries(over)
            : over === null
              ? []
              : (() => {
                  throw new KritiError('Range Error', 'range expects an array or object', n.over.pos);
                })();
        return entries.map(([i, v]) => run(n.body, { ...vars, ...(n.index ? { [n.index]: i } : {}), [n.item]: v }));
      }
    }
  };

  const binary = (n: Extract<Node, { k: 'binary' }>, vars: Readonly<Record<string, Json>>): Json => {
    if (n.op === '??') {
      const l = run(n.left, vars);
      return l === null ? run(n.right, vars) : l;
    }
    if (n.op === '&&' || n.op === '||') {
      const l = run(n.left, vars);
      if (typeof l !== 'boolean') throw new KritiError('Type Error', `${n.op} expects booleans`, n.left.pos);
      if (n.op === '&&' ? !l : l) return l;
      const r = run(n.right, vars);
      if (typeof r !== 'boolean') throw new KritiError('Type Error', `${n.op} expects booleans`, n.right.pos);
      return r;
    }
    const l = run(n.left, vars);
    const r = run(n.right, vars);
    switch (n.op) {
      case '==':
        return jsonEqual(l, r);
      case '!=':
        return !jsonEqual(l, r);
      case 'in':
        if (Array.isArray(r)) return r.some((x) => jsonEqual(x, l));
        if (isObject(r) && typeof l === 'string') return Object.prototype.hasOwnProperty.call(r, l);
        if (typeof r === 'string' && typeof l === 'string') return r.includes(l);
        throw new KritiError('Type Error', '"in" expects an array, an object or a string on its right', n.pos);
      default: {
        const comparable = (typeof l === 'number' && typeof r === 'number') || (typeof l === 'string' && typeof r === 'string');
        if (!comparable) throw new KritiError('Type Error', `${n.op} compares two numbers or two strings`, n.pos);
        const a = l as number | string;
        const b = r as number | string;
        return n.op === '>' ? a > b : n.op === '<' ? a < b : n.op === '>=' ? a >= b : a <= b;
      }
    }
  };

  return run(node, scope.variables);
}

export function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]!));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k]!, b[k]!));
  }
  return false;
}
