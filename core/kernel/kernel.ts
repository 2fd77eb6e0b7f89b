/**
 * The kernel: an awilix container, the hook map and the plugins registered into them. It does no
 * I/O of its own; `core/engine.ts` builds the running server around it. Tests create a kernel with
 * just the plugins under test.
 */
import { asFunction, asValue, createContainer, InjectionMode, type AwilixContainer, type Resolver } from 'awilix';
import { createHooks, type KernelHooks } from '../hooks.js';
import { pluginId, type AnyPlugin } from '../plugin.js';
import type { ServerConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { createMetrics, type MetricsRegistry } from '../metrics/registry.js';
import { sortPlugins } from './sort.js';
import { checkPluginOptions } from './options.js';
import { OutgoingHttp } from '../http/outgoing.js';
import { checkOptionsEnforced, ProvidedFeatures } from '../features/index.js';
import { databaseKinds } from '../db/registry.js';

export interface KernelInit {
  plugins: readonly AnyPlugin[];
  config: ServerConfig;
  /** Options per plugin id, from the plugin config file; they override `optionsFromConfig`. */
  pluginOptions?: Readonly<Record<string, unknown>>;
  logger?: Logger;
  /** The environment `{from_env}` references resolve against (defaults to process.env). */
  env?: NodeJS.ProcessEnv;
  /** The engine's metrics; by default enabled when the `metrics` API is. */
  metrics?: MetricsRegistry;
  /** Registered after the plugins, so test fakes win. */
  overrides?: Record<string, Resolver<unknown>>;
}

export interface Kernel {
  readonly container: AwilixContainer;
  readonly hooks: KernelHooks;
  readonly config: ServerConfig;
  readonly logger: Logger;
  /** What the loaded plugins enforce. */
  readonly features: ProvidedFeatures;
  /** Plugin ids in registration order. */
  readonly pluginIds: readonly string[];
  dispose(): Promise<void>;
}

export async function createKernel(init: KernelInit): Promise<Kernel> {
  const container = createContainer({ injectionMode: InjectionMode.PROXY, strict: true });
  const hooks = createHooks();
  const logger = init.logger ?? silentLogger();
  container.register({
    config: asValue(init.config),
    hooks: asValue(hooks),
    logger: asValue(logger),
    env: asValue(init.env ?? process.env),
    metrics: asValue(init.metrics ?? createMetrics({ enabled: init.config.enabledApis.includes('metrics') })),
    // The one client for calls to servers the engine does not control (docs/security.md); no
    // connection is opened until a plugin makes a call.
    outgoingHttp: asFunction(() => new OutgoingHttp()).singleton().disposer((h) => h.close()),
  });

  const ordered = sortPlugins(init.plugins);
  const features = new ProvidedFeatures(ordered.map((p) => ({ id: pluginId(p), provides: p.provides })));
  checkOptionsEnforced(init.config, features);
  container.register({ features: asValue(features) });
  for (const plugin of ordered) {
    const id = pluginId(plugin);
    const fromConfig = plugin.optionsFromConfig?.(init.config) ?? {};
    const given = init.pluginOptions?.[id];
    const merged =
      given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given))
        ? given
        : { ...fromConfig, ...(given as Record<string, unknown> | undefined) };
    const options = checkPluginOptions(plugin, merged);
    await plugin.register(container, hooks, options);
  }
  if (init.overrides) container.register(init.overrides);
  hooks.onPluginsRegistered.call({ container, kinds: databaseKinds(container) });

  return {
    container,
    hooks,
    config: init.config,
    logger,
    features,
    pluginIds: ordered.map(pluginId),
    dispose: () => container.dispose(),
  };
}
