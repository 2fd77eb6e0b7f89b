/**
 * The rate limit's counter key (plugins/limits/rate/counter-key.ts): built from a per-role
 * prefix, it must be the very text earlier versions built per request, JSON.stringify of the
 * role and the unique values, since every engine instance counts under it in the shared store.
 */
import { expect } from 'chai';
import { counterKeyFor } from '../../../plugins/limits/rate/counter-key.js';
import { makeSession } from '../../../core/auth/session.js';
import type { UniqueParams } from '../../../plugins/metadata/api-limits/limits.js';

/** The key as it was built before, per request (plugins/limits/rate/index.ts at 2eb29e9). */
function referenceKey(role: string, unique: UniqueParams | null, variables: Record<string, string>, ip: string): string {
  if (unique === null) return `svc:lease:${JSON.stringify([role])}`;
  if (unique === 'IP') return `svc:lease:${JSON.stringify([role, 'ip', ip])}`;
  return `svc:lease:${JSON.stringify([role, ...unique.map((v) => variables[v.toLowerCase()] ?? null)])}`;
}

const ROLES = ['user', 'a "quoted" role', 'rôle\\with\nodd\u2028text', ''];
const VARIABLES: Array<Record<string, string>> = [
  {},
  { 'x-svc-user-id': '42' },
  { 'x-svc-user-id': 'with "quotes" and \\ and \u0001', 'x-svc-org-id': 'ö' },
  { 'x-svc-org-id': '7' },
];
const UNIQUE: Array<UniqueParams | null> = [null, 'IP', ['x-svc-user-id'], ['X-Svc-User-Id', 'x-svc-org-id'], []];

describe('rate-limit counter keys', () => {
  it('are the text earlier versions built, for every role, unique_params, session and IP', () => {
    let checked = 0;
    for (const role of ROLES) {
      for (const unique of UNIQUE) {
        const key = counterKeyFor(role, unique);
        for (const variables of VARIABLES) {
          for (const ip of ['10.0.0.1', '::1', '']) {
            const session = makeSession(role, variables);
            expect(key(session, ip), `${role} ${JSON.stringify(unique)} ${JSON.stringify(variables)} ${ip}`).to.equal(referenceKey(role, unique, session.variables, ip));
            checked++;
          }
        }
      }
    }
    expect(checked).to.equal(ROLES.length * UNIQUE.length * VARIABLES.length * 3);
  });

  it('keep users, IPs and roles apart', () => {
    const perUser = counterKeyFor('user', ['x-svc-user-id']);
    const a = perUser(makeSession('user', { 'x-svc-user-id': '1' }), '');
    const b = perUser(makeSession('user', { 'x-svc-user-id': '2' }), '');
    const none = perUser(makeSession('user', {}), '');
    expect(new Set([a, b, none]).size).to.equal(3);
    expect(none).to.equal('svc:lease:["user",null]');
    const perIp = counterKeyFor('user', 'IP');
    expect(perIp(makeSession('user', {}), '1.2.3.4')).to.equal('svc:lease:["user","ip","1.2.3.4"]');
    expect(counterKeyFor('editor', null)(makeSession('editor', {}), '1.2.3.4')).to.equal('svc:lease:["editor"]');
  });
});
