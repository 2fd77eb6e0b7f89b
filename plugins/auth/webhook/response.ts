/**
 * What the webhook's answer means. 200 with a JSON object of string values: those are the session
 * variables and `x-svc-role` the role; 401: the request is refused with 401; anything else: 500.
 * A 200 whose body is not such an object is a 500 naming the decoding problem in the reference
 * engine's words ("Error in $: parsing HashMap ~Text failed, expected Object, but encountered
 * Array").
 */
import { EngineError } from '../../../core/sdk/index.js';

export type HookAnswer = { kind: 'accepted'; answer: Record<string, string> } | { kind: 'rejected'; error: EngineError };

const INVALID = 'Invalid response from authorization hook';

function jsonType(v: unknown): string {
  if (v === null) return 'Null';
  if (Array.isArray(v)) return 'Array';
  const t = typeof v;
  return t === 'string' ? 'String' : t === 'number' ? 'Number' : t === 'boolean' ? 'Boolean' : 'Object';
}

function pathOf(key: string): string {
  return /^[A-Za-z][A-Za-z0-9]*$/.test(key) ? `$.${key}` : `$['${key.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`;
}

/** The reference engine's decoder message for a body that is not an object of strings. */
function decodeProblem(body: string): { answer?: Record<string, string>; problem?: string } {
  if (body.trim() === '') return { problem: 'Error in $: not enough input' };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    const snippet = body.trim().split(/\s/, 1)[0]?.slice(0, 50) ?? '';
    return { problem: `Error in $: Failed reading: not a valid json value at '${snippet}'` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problem: `Error in $: parsing HashMap ~Text failed, expected Object, but encountered ${jsonType(value)}` };
  }
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string') {
      return { problem: `Error in ${pathOf(k)}: parsing Text failed, expected String, but encountered ${jsonType(v)}` };
    }
  }
  return { answer: value as Record<string, string> };
}

export function interpretHookAnswer(status: number, body: Buffer): HookAnswer {
  if (status === 401) {
    return { kind: 'rejected', error: new EngineError('access-denied', 'Authentication hook unauthorized this request', { status: 401 }) };
  }
  if (status !== 200) {
    return { kind: 'rejected', error: new EngineError('unexpected', INVALID, { status: 500, internal: { status } }) };
  }
  const { answer, problem } = decodeProblem(body.toString('utf8'));
  if (!answer) return { kind: 'rejected', error: new EngineError('unexpected', `${INVALID}: ${problem}`, { status: 500 }) };
  return { kind: 'accepted', answer };
}

/** Session variables from an accepted answer: `x-svc-*` names, lower-cased. */
export function sessionVariablesOf(answer: Readonly<Record<string, string>>): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [k, v] of Object.entries(answer)) {
    const name = k.toLowerCase();
    if (name.startsWith('x-svc-') && name !== 'x-svc-admin-secret' && name !== 'x-svc-access-key') vars[name] = v;
  }
  return vars;
}

export function missingRoleError(): EngineError {
  return new EngineError('invalid-params', 'x-svc-role not found in session variables');
}
