import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKernel } from '../../../core/kernel/kernel.js';
import { sortPlugins } from '../../../core/kernel/sort.js';
import { loadPlugins } from '../../../core/kernel/loader.js';
import { definePlugin, pluginId, type AnyPlugin } from '../../../core/plugin.js';
import { BootError } from '../../../core/errors.js';
import { Stage } from '../../../core/hooks.js';
import { makeSession } from '../../../core/auth/session.js';
import { testConfig } from '../../helpers/config.js';

const plugin = (name: string, dependsOn: string[] = [], log: string[] = []): AnyPlugin =>
  definePlugin({ name, kind: 'example', dependsOn, register: () => void log.push(name) });

const bootError = async (fn: () => unknown): Promise<BootError> => {
  try {
    await fn();
  } catch (e) {
    expect(e).to.be.instanceOf(BootError);
    return e as BootError;
  }
  throw new Error('expected a BootError');
};

describe('kernel', () => {
  describe('plugin ordering', () => {
    it("registers a plugin's dependencies just before it and otherwise keeps the configured order", async () => {
      const log: string[] = [];
      const kernel = await createKernel({
        config: testConfig(),
        plugins: [plugin('c', ['example/a'], log), plugin('b', [], log), plugin('a', [], log)],
      });
      expect(log).to.deep.equal(['a', 'c', 'b']);
      expect(kernel.pluginIds).to.deep.equal(['example/a', 'example/c', 'example/b']);
    });

    it('names the plugin and the missing dependency', async () => {
      const e = await bootError(() => sortPlugins([plugin('x', ['db/postgres'])]));
      expect(e.code).to.equal('E_PLUGIN_DEPENDENCY_MISSING');
      expect(e.message).to.contain("'example/x' needs 'db/postgres'");
    });

    it('reports a dependency cycle with its path', async () => {
      const e = await bootError(() => sortPlugins([plugin('a', ['example/b']), plugin('b', ['example/a'])]));
      expect(e.code).to.equal('E_PLUGIN_DEPENDENCY_CYCLE');
      expect(e.message).to.match(/example\/a -> example\/b -> example\/a/);
    });

    it('refuses a plugin listed twice', async () => {
      const e = await bootError(() => sortPlugins([plugin('a'), plugin('a')]));
      expect(e.code).to.equal('E_PLUGIN_DUPLICATE');
    });
  });

  describe('plugin options', () => {
    const withOptions = definePlugin<{ size: number }>({
      name: 'sized',
      kind: 'example',
      optionsSchema: { type: 'object', properties: { size: { type: 'integer', minimum: 1 } }, required: ['size'] },
      optionsFromConfig: (c) => ({ size: c.pgConnections }),
      register() {},
    });

    it('derives options from the server config and lets the plugin config override them', async () => {
      const seen: number[] = [];
      const spy = { ...withOptions, register: (_c: unknown, _h: unknown, o: { size: number }) => void seen.push(o.size) } as AnyPlugin;
      await createKernel({ config: testConfig({ pgConnections: 7 }), plugins: [spy] });
      await createKernel({ config: testConfig(), plugins: [spy], pluginOptions: { 'example/sized': { size: 3 } } });
      expect(seen).to.deep.equal([7, 3]);
    });

    it('refuses bad options, naming the plugin and the problem', async () => {
      const e = await bootError(() =>
        createKernel({ config: testConfig(), plugins: [withOptions], pluginOptions: { 'example/sized': { size: 0 } } }),
      );
      expect(e.code).to.equal('E_PLUGIN_OPTIONS_INVALID');
      expect(e.message).to.contain("'example/sized'").and.contain('/size must be >= 1');
    });
  });

  describe('hooks', () => {
    it('runs auth taps by stage and stops at the first session', async () => {
      const order: string[] = [];
      const late = definePlugin({
        name: 'late',
        kind: 'auth',
        register: (_c, hooks) =>
          hooks.onRequestAuth.tap({ name: 'auth/late', stage: Stage.LAST }, () => {
            order.push('late');
            return makeSession('late', {});
          }),
      });
      const early = definePlugin({
        name: 'early',
        kind: 'auth',
        register: (_c, hooks) =>
          hooks.onRequestAuth.tap({ name: 'auth/early', stage: Stage.EARLY }, () => {
            order.push('early');
            return makeSession('early', {});
          }),
      });
      const kernel = await createKernel({ config: testConfig(), plugins: [late, early] });
      const session = await kernel.hooks.onRequestAuth.promise({ headers: {}, ip: '127.0.0.1', responseHeaders: [] });
      expect(session?.role).to.equal('early');
      expect(order).to.deep.equal(['early']);
    });

    it('dispatches metadata operations by type, leaving unknown types without a hook', async () => {
      const kernel = await createKernel({
        config: testConfig(),
        plugins: [
          definePlugin({
            name: 'op',
            kind: 'metadata',
            register: (_c, hooks) => hooks.onMetadataOperation.for('x_op').tapPromise('metadata/op', async () => ({ body: 1 })),
          }),
        ],
      });
      expect(kernel.hooks.onMetadataOperation.get('x_op')).to.not.equal(undefined);
      expect(kernel.hooks.onMetadataOperation.get('unknown_op')).to.equal(undefined);
    });
  });

  describe('plugin config loading', () => {
    const configFile = (plugins: unknown[]): string => {
      const dir = mkdtempSync(join(tmpdir(), 'svc-plugins-'));
      const file = join(dir, 'plugins.json');
      writeFileSync(file, JSON.stringify({ plugins }));
      return file;
    };

    it('names an unknown plugin and lists the built-in ones', async () => {
      const e = await bootError(() => loadPlugins(configFile(['db/nosuch']), ['metadata']));
      expect(e.code).to.equal('E_PLUGIN_UNKNOWN');
      expect(e.message).to.contain("unknown plugin 'db/nosuch'").and.contain('db/postgres');
    });

    it('leaves out API plugins of disabled APIs', async () => {
      const loaded = await loadPlugins(configFile(['api/metadata', 'api/config', 'auth/admin-secret']), ['config']);
      expect(loaded.plugins.map(pluginId)).to.deep.equal(['api/config', 'auth/admin-secret']);
    });

    it('loads a third-party plugin from a module path relative to the config', async () => {
      const file = configFile([{ id: 'example/echo-operation', module: join(process.cwd(), 'plugins/example/echo-operation/index.ts'), options: { prefix: 'p' } }]);
      const loaded = await loadPlugins(file, []);
      expect(loaded.plugins.map(pluginId)).to.deep.equal(['example/echo-operation']);
      expect(loaded.options).to.deep.equal({ 'example/echo-operation': { prefix: 'p' } });
    });

    it('refuses a malformed plugin config', async () => {
      const e = await bootError(() => loadPlugins(configFile([42]), []));
      expect(e.code).to.equal('E_PLUGIN_CONFIG_INVALID');
    });

    it('every plugin of the default config loads', async () => {
      const loaded = await loadPlugins(join(process.cwd(), 'config/plugins.json'), ['metadata', 'graphql', 'pgdump', 'config']);
      expect(loaded.plugins.length).to.be.greaterThan(5);
      expect(() => sortPlugins(loaded.plugins)).to.not.throw();
    });
  });
});
