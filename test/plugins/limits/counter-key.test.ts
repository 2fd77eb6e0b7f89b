/**
 * The rate limit's counter key (plugins/limits/rate/counter-key.ts): built from a per-role
 * prefix, it must be the very text earlier versions built per request, JSON.stringify of the
 * role and the unique values, since every engine instance counts under it in the shared store.
 */
import { expect } from 'chai';
import { counterKeyFor, type CounterKey } from '../../../plugins/limits/rate/counter-key.js';
import { makeSession, type Session } from '../../../core/auth/session.js';
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
            expect(key.text(key.part(session, ip)), `${role} ${JSON.stringify(unique)} ${JSON.stringify(variables)} ${ip}`).to.equal(referenceKey(role, unique, session.variables, ip));
            checked++;
          }
        }
      }
    }
    expect(checked).to.equal(ROLES.length * UNIQUE.length * VARIABLES.length * 3);
  });

  it('keep users, IPs and roles apart', () => {
    const perUser = counterKeyFor('user', ['x-svc-user-id']);
    const keyOf = (k: CounterKey, session: Session, ip: string) => k.text(k.part(session, ip));
    const a = keyOf(perUser, makeSession('user', { 'x-svc-user-id': '1' }), '');
    const b = keyOf(perUser, makeSession('user', { 'x-svc-user-id': '2' }), '');
    const none = keyOf(perUser, makeSession('user', {}), '');
    expect(new Set([a, b, none]).size).to.equal(3);
    expect(none).to.equal('svc:lease:["user",null]');
    const perIp = counterKeyFor('user', 'IP');
    expect(keyOf(perIp, makeSession('user', {}), '1.2.3.4')).to.equal('svc:lease:["user","ip","1.2.3.4"]');
    expect(keyOf(counterKeyFor('editor', null), makeSession('editor', {}), '1.2.3.4')).to.equal('svc:lease:["editor"]');
  });

  it('give a request only its own part: the value itself for one variable, the IP, nothing for the role', () => {
    const perUser = counterKeyFor('user', ['X-Svc-User-Id']);
    expect(perUser.part(makeSession('user', { 'x-svc-user-id': '42' }), '1.2.3.4')).to.equal('42');
    expect(perUser.part(makeSession('user', {}), '1.2.3.4')).to.equal(null);
    expect(counterKeyFor('user', 'IP').part(makeSession('user', {}), '1.2.3.4')).to.equal('1.2.3.4');
    expect(counterKeyFor('user', null).part(makeSession('user', {}), '1.2.3.4')).to.equal('');
    // Scopes: one per role and limit, never shared by two limits whose parts mean different things.
    const scopes = [counterKeyFor('user', null), counterKeyFor('user', 'IP'), perUser, counterKeyFor('user', ['x-svc-org-id']), counterKeyFor('user', ['x-svc-user-id', 'x-svc-org-id']), counterKeyFor('admin2', 'IP')].map((k) => k.scope);
    expect(new Set(scopes).size).to.equal(scopes.length);
    expect(counterKeyFor('user', ['x-svc-user-id']).scope).to.equal(perUser.scope);
    // No variables listed is the role's own key, counted with it.
    expect(counterKeyFor('user', []).scope).to.equal(counterKeyFor('user', null).scope);
  });
});
