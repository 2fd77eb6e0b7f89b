import { expect } from 'chai';
import { SessionCache } from '../../../core/auth/session-cache.js';
import { makeSession } from '../../../core/auth/session.js';

describe('JWT session cache', () => {
  const session = makeSession('user', { 'x-svc-user-id': '7' });
  const keys = [{ kid: 'a' }];
  const now = 1_000_000;

  it('serves a session until its end of validity (exp + skew), then drops it', () => {
    const cache = new SessionCache();
    cache.set('tok', undefined, keys, session, now + 5000);
    expect(cache.get('tok', undefined, keys, now)).to.equal(session);
    expect(cache.get('tok', undefined, keys, now + 4999)).to.equal(session);
    expect(cache.get('tok', undefined, keys, now + 5000)).to.equal(undefined);
    expect(cache.size).to.equal(0);
  });

  it('is emptied when the key set changes (a JWK set fetched again, keys rotated)', () => {
    const cache = new SessionCache();
    cache.set('tok', undefined, keys, session, Number.POSITIVE_INFINITY);
    const rotated = [{ kid: 'b' }];
    expect(cache.get('tok', undefined, rotated, now)).to.equal(undefined);
    expect(cache.size).to.equal(0);
    // Back to the old set: nothing verified under it survives the rotation.
    expect(cache.get('tok', undefined, keys, now)).to.equal(undefined);
    // An equal but new array is a new set: compared by identity.
    cache.set('tok', undefined, keys, session, Number.POSITIVE_INFINITY);
    expect(cache.get('tok', undefined, [{ kid: 'a' }], now)).to.equal(undefined);
  });

  it('keeps one entry per requested role: another X-Svc-Role is a miss', () => {
    const cache = new SessionCache();
    const editor = makeSession('editor', {});
    cache.set('tok', 'user', keys, session, Number.POSITIVE_INFINITY);
    expect(cache.get('tok', 'editor', keys, now)).to.equal(undefined);
    expect(cache.get('tok', undefined, keys, now)).to.equal(undefined);
    cache.set('tok', 'editor', keys, editor, Number.POSITIVE_INFINITY);
    expect(cache.get('tok', 'user', keys, now)).to.equal(session);
    expect(cache.get('tok', 'editor', keys, now)).to.equal(editor);
    expect(cache.get('other', 'user', keys, now)).to.equal(undefined);
  });

  it('holds at most maxEntries, dropping the oldest', () => {
    const cache = new SessionCache(1024);
    for (let i = 0; i < 1500; i++) cache.set(`tok${i}`, undefined, keys, session, Number.POSITIVE_INFINITY);
    expect(cache.size).to.equal(1024);
    expect(cache.get('tok0', undefined, keys, now)).to.equal(undefined);
    expect(cache.get('tok475', undefined, keys, now)).to.equal(undefined);
    expect(cache.get('tok476', undefined, keys, now)).to.equal(session);
    expect(cache.get('tok1499', undefined, keys, now)).to.equal(session);
  });
});
