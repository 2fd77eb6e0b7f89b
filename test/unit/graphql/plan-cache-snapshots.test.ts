import { expect } from 'chai';
import { makeSession } from '../../../core/auth/session.js';
import { GraphQLExecutor } from '../../../core/graphql/execute/executor.js';
import type { RoleSchema } from '../../../core/graphql/schema-draft.js';
import type { SchemaCache } from '../../../core/schema-cache/cache.js';
import { SchemaCacheRef } from '../../../core/schema-cache/ref.js';
import { testConfig } from '../../helpers/config.js';
import { authorSpec, makeSource, roleSchema } from './fixtures.js';

/** A snapshot that serves one role schema and counts how often it is asked for it. */
function snapshot(version: number): SchemaCache & { asked: number } {
  const schema: RoleSchema = roleSchema([makeSource('default', [authorSpec()])]);
  const cache = {
    version,
    resourceVersion: version,
    metadata: { version: 3, sources: [] },
    sources: new Map(),
    inconsistentObjects: [],
    roles: new Set(['admin']),
    asked: 0,
    schemaFor: async () => {
      cache.asked++;
      return schema;
    },
  };
  return cache as unknown as SchemaCache & { asked: number };
}

/**
 * Plans are keyed by snapshot version: an older snapshot's plans are never hit again, and while
 * cached they held its role schemas (740 MB for 20 roles over 1,000 tables). A newer snapshot's
 * first plan drops them.
 */
describe('graphql executor plan cache across snapshots', () => {
  const admin = makeSession('admin', {});
  const request = { query: '{ __typename }', variables: {}, operationName: null };

  it('plans once per snapshot and keeps only the serving snapshot\'s plans', async () => {
    const v1 = snapshot(1);
    const ref = new SchemaCacheRef(v1);
    const executor = new GraphQLExecutor(ref, testConfig());
    const cached = () => (executor as unknown as { prepared: { size: number } }).prepared.size;

    expect(await executor.execute(request, admin)).to.equal('{"data":{"__typename":"query_root"}}');
    await executor.execute({ ...request, query: '{ t: __typename }' }, admin);
    await executor.execute(request, admin);
    expect(v1.asked).to.equal(2);
    expect(cached()).to.equal(2);

    const v2 = snapshot(2);
    ref.swap(v2);
    expect(await executor.execute(request, admin)).to.equal('{"data":{"__typename":"query_root"}}');
    await executor.execute(request, admin);
    expect(v2.asked).to.equal(1);
    expect(cached()).to.equal(1);
  });
});
