/**
 * A kernel for plugin tests: the real createKernel (strict container, dependency order, option
 * validation, the onPluginsRegistered step) with only the plugins under test and stand-ins for
 * what they need from elsewhere (`fakes`: a `db.<kind>` database kind, a service). Nothing is
 * started: there is no database, no HTTP server and no metadata store unless a fake provides it.
 */
import { asValue, type Resolver } from 'awilix';
import { parseServerConfig } from '../config/parse.js';
import type { ServerConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import type { AnyPlugin } from '../plugin.js';
import { createKernel, type Kernel } from './kernel.js';

export interface TestKernelInit {
  plugins: readonly AnyPlugin[];
  /** Registered in the container after the plugins (so they win), each as a value. */
  fakes?: Readonly<Record<string, unknown>>;
  /** Overrides of the default server configuration. */
  config?: Partial<ServerConfig>;
  /** Options per plugin id, as the plugin config would give them. */
  pluginOptions?: Readonly<Record<string, unknown>>;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
}

export function createTestKernel(init: TestKernelInit): Promise<Kernel> {
  const { config } = parseServerConfig({ flags: {}, env: {} });
  const overrides: Record<string, Resolver<unknown>> = {};
  for (const [key, value] of Object.entries(init.fakes ?? {})) overrides[key] = asValue(value);
  return createKernel({
    plugins: init.plugins,
    config: { ...config, ...init.config },
    env: init.env ?? {},
    overrides,
    ...(init.pluginOptions ? { pluginOptions: init.pluginOptions } : {}),
    ...(init.logger ? { logger: init.logger } : {}),
  });
}
