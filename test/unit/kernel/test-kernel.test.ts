/**
 * createTestKernel boots the real kernel with only the plugins under test, and per-kind metadata
 * operations follow the kinds it finds: a kind's prefix, and its capabilities.
 */
import { expect } from 'chai';
import { createTestKernel, type DatabaseKind, type KindCapabilities } from '../../../core/sdk/index.js';
import { isBootError } from '../../../core/errors.js';
import tablesPlugin from '../../../plugins/metadata/tables/index.js';
import functionsPlugin from '../../../plugins/metadata/functions/index.js';
import legacyDmlPlugin from '../../../plugins/metadata/legacy-dml/index.js';
import echoPlugin from '../../../plugins/example/echo-operation/index.js';
import { FakeConnection } from '../../helpers/fake-connection.js';

const kind = (name: string, prefix: string, capabilities: KindCapabilities = {}): DatabaseKind => ({
  kind: name,
  prefix,
  capabilities,
  validateConfiguration: () => undefined,
  connect: () => new FakeConnection(),
});

describe('createTestKernel and operations derived from the loaded kinds', () => {
  it('gives each loaded kind its prefixed operations, and capabilities decide the rest', async () => {
    const kernel = await createTestKernel({
      plugins: [tablesPlugin, functionsPlugin],
      fakes: { 'db.widgets': kind('widgets', 'wd'), 'db.gadgets': kind('gadgets', 'gd', { enumTables: true, functions: true }) },
    });
    const has = (type: string) => kernel.hooks.onMetadataOperation.get(type) !== undefined;
    expect(['wd_track_table', 'wd_untrack_table', 'gd_track_table', 'gd_set_table_is_enum', 'gd_track_function'].filter((t) => !has(t))).to.deep.equal([]);
    expect(['wd_set_table_is_enum', 'wd_track_function', 'pg_track_table', 'track_function'].filter(has)).to.deep.equal([]);
    // Unprefixed (legacy table) operations exist whatever the kinds.
    expect(has('track_table')).to.equal(true);
  });

  it('serves the legacy unprefixed names only when a pg kind is loaded', async () => {
    const kernel = await createTestKernel({ plugins: [functionsPlugin], fakes: { 'db.postgres': kind('postgres', 'pg', { functions: true }) } });
    expect(kernel.hooks.onMetadataOperation.get('track_function')).to.not.equal(undefined);
    expect(kernel.hooks.onMetadataOperation.get('pg_track_function')).to.not.equal(undefined);
  });

  it('validates plugin options and dependencies as the engine does', async () => {
    const bad = await createTestKernel({ plugins: [echoPlugin], pluginOptions: { 'example/echo-operation': { prefix: 3 } } }).catch((e: unknown) => e);
    expect(isBootError(bad) && bad.code).to.equal('E_PLUGIN_OPTIONS_INVALID');
    const missing = await createTestKernel({ plugins: [legacyDmlPlugin] }).catch((e: unknown) => e);
    expect(isBootError(missing) && missing.code).to.equal('E_PLUGIN_DEPENDENCY_MISSING');
  });

  it('uses a strict container with the fakes registered', async () => {
    const kernel = await createTestKernel({ plugins: [echoPlugin], fakes: { clock: { now: 1 } } });
    expect(kernel.container.resolve<{ now: number }>('clock').now).to.equal(1);
    expect(() => kernel.container.resolve('nothing')).to.throw();
    expect(kernel.pluginIds).to.deep.equal(['example/echo-operation']);
  });
});
