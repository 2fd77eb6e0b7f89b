/**
 * The plan cache (core/graphql/execute/plan-cache.ts): keyed by query text, then schema version,
 * role and operation name, with least-recently-used eviction over all plans.
 */
import { expect } from 'chai';
import { PlanCache } from '../../../core/graphql/execute/plan-cache.js';

describe('graphql: plan cache', () => {
  it('keeps one plan per text, version, role and operation name', () => {
    const cache = new PlanCache<string>(10);
    cache.set('{ a }', 1, 'admin', '', 'admin v1');
    cache.set('{ a }', 1, 'user', '', 'user v1');
    cache.set('{ a }', 2, 'admin', '', 'admin v2');
    cache.set('{ a }', 1, 'admin', 'Named', 'admin v1 Named');
    expect(cache.get('{ a }', 1, 'admin', '')).to.equal('admin v1');
    expect(cache.get('{ a }', 1, 'user', '')).to.equal('user v1');
    expect(cache.get('{ a }', 2, 'admin', '')).to.equal('admin v2');
    expect(cache.get('{ a }', 1, 'admin', 'Named')).to.equal('admin v1 Named');
    expect(cache.get('{ a }', 3, 'admin', '')).to.equal(undefined);
    expect(cache.get('{ b }', 1, 'admin', '')).to.equal(undefined);
    expect(cache.size).to.equal(4);
    cache.set('{ a }', 1, 'admin', '', 'replaced');
    expect(cache.get('{ a }', 1, 'admin', '')).to.equal('replaced');
    expect(cache.size).to.equal(4);
  });

  it('evicts the least recently used plan, across texts and slots', () => {
    const cache = new PlanCache<number>(3);
    cache.set('q1', 1, 'admin', '', 1);
    cache.set('q1', 1, 'user', '', 2);
    cache.set('q2', 1, 'admin', '', 3);
    // A hit makes q1/admin recent: q1/user is now the oldest.
    expect(cache.get('q1', 1, 'admin', '')).to.equal(1);
    cache.set('q3', 1, 'admin', '', 4);
    expect(cache.size).to.equal(3);
    expect(cache.get('q1', 1, 'user', '')).to.equal(undefined);
    expect(cache.get('q1', 1, 'admin', '')).to.equal(1);
    expect(cache.get('q2', 1, 'admin', '')).to.equal(3);
    expect(cache.get('q3', 1, 'admin', '')).to.equal(4);
    // The last slot of a text goes with its text.
    cache.set('q4', 1, 'admin', '', 5);
    expect(cache.get('q1', 1, 'admin', '')).to.equal(undefined);
    expect(cache.size).to.equal(3);
  });

  it('holds nothing with a capacity of 0, and nothing after clear()', () => {
    const none = new PlanCache<number>(0);
    none.set('q', 1, 'admin', '', 1);
    expect(none.get('q', 1, 'admin', '')).to.equal(undefined);
    const cache = new PlanCache<number>(2);
    cache.set('q', 1, 'admin', '', 1);
    cache.clear();
    expect(cache.size).to.equal(0);
    expect(cache.get('q', 1, 'admin', '')).to.equal(undefined);
  });
});
