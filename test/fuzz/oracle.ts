/**
 * The properties every fuzzed GraphQL request must keep, checked on the engine's answer: every
 * refusal is a coded error from the expected set (never `unexpected`), no database error of class
 * 42 (syntax error, unknown name or type: a statement the compiler got wrong) ever comes back, the
 * user role only ever sees its own rows and never the `token` column. Shared by the fast-check
 * test and the Jazzer.js target; the tally is what docs/security.md reports.
 */
export const ACCEPTED_CODES: ReadonlySet<string> = new Set([
  'validation-failed', 'parse-failed', 'data-exception', 'bad-request', 'constraint-violation',
  'permission-error', 'not-supported', 'invalid-json', 'not-found', 'constraint-error', 'permission-denied',
  // --pg-statement-timeout ended an expensive statement (the coverage fuzzer runs with it).
  'statement-timeout',
]);

export interface Tally {
  tried: number;
  answered: number;
  refusals: Record<string, number>;
  /** SQLSTATEs behind `data-exception` and similar refusals, for the report. */
  sqlStates: Record<string, number>;
  findings: string[];
}

export const newTally = (): Tally => ({ tried: 0, answered: 0, refusals: {}, sqlStates: {}, findings: [] });

export class Finding extends Error {}

interface GraphQLErrorJson {
  message?: unknown;
  extensions?: { code?: unknown; internal?: { error?: { status_code?: unknown } } };
}

/** SQLSTATEs an input may legitimately cause: data exceptions (22) and integrity violations (23). */
const EXPECTED_SQLSTATE = /^(22|23|40)/;

function bump(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1;
}

/** Rows anywhere in the answer that carry an `owner_id`. */
function ownerIds(value: unknown, out: unknown[] = []): unknown[] {
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (Array.isArray(v)) stack.push(...v);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if ('owner_id' in o) out.push(o['owner_id']);
      stack.push(...Object.values(o));
    }
  }
  return out;
}

export interface Expectation {
  /** The user id the request ran as; undefined for admin. */
  userId?: number;
  request: string;
}

/** Checks one answer (its JSON text), records it in the tally, throws Finding on a violation. */
export function checkAnswer(text: string, tally: Tally, expect: Expectation): void {
  tally.tried++;
  const fail = (why: string): never => {
    const finding = `${why}\n  request: ${expect.request.slice(0, 2000)}\n  answer: ${text.slice(0, 2000)}`;
    tally.findings.push(finding);
    throw new Finding(finding);
  };
  let body: { data?: unknown; errors?: GraphQLErrorJson[] };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return fail('the answer is not JSON');
  }
  if (expect.userId !== undefined && text.includes('SECRET-TOKEN')) fail('the user role saw the token column');
  if (body.errors) {
    if (!Array.isArray(body.errors) || body.errors.length === 0) fail('errors is not a non-empty list');
    for (const e of body.errors!) {
      const code = e.extensions?.code;
      if (typeof code !== 'string' || !ACCEPTED_CODES.has(code)) fail(`refused with code ${String(code)}`);
      if (typeof e.message !== 'string' || e.message === '') fail('an error without a message');
      const state = e.extensions?.internal?.error?.status_code;
      if (typeof state === 'string') {
        bump(tally.sqlStates, state);
        if (!EXPECTED_SQLSTATE.test(state) && !(code === 'constraint-error' && state.startsWith('42'))) {
          fail(`the database refused a compiled statement with SQLSTATE ${state}`);
        }
      }
      bump(tally.refusals, code as string);
    }
    return;
  }
  if (!('data' in body)) fail('neither data nor errors');
  tally.answered++;
  if (expect.userId !== undefined) {
    for (const owner of ownerIds(body.data)) {
      if (owner !== expect.userId) fail(`the user ${expect.userId} saw a row of owner ${String(owner)}`);
    }
  }
}
