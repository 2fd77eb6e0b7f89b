/**
 * The plugin contract. A plugin is data plus one wiring function: `register` taps hooks and
 * registers services in the container; it performs no I/O (connections are lazy singletons with
 * disposers, background loops start on the `server.started` event).
 */
import type { AwilixContainer } from 'awilix';
import type { JSONSchemaType } from 'ajv';
import type { KernelHooks } from './hooks.js';
import type { ApiName, ServerConfig } from './config/types.js';

export type PluginKind = 'api' | 'metadata' | 'db' | 'auth' | 'trigger' | 'limits' | 'example';

export type { ApiName } from './config/types.js';

export interface Plugin<TOptions = unknown> {
  /** Kebab-case name; the plugin id is `<kind>/<name>`. */
  readonly name: string;
  readonly kind: PluginKind;
  /** For `api` plugins: the API this plugin serves; it only loads when that API is enabled. */
  readonly api?: ApiName;
  /**
   * Features this plugin enforces (`allowlist`, `api-limits`, `introspection-control`, ...). An
   * option or metadata section that needs a feature no loaded plugin provides is refused
   * (core/features, docs/plugins.md).
   */
  readonly provides?: readonly string[];
  /** Plugin ids that must be registered before this one. */
  readonly dependsOn?: readonly string[];
  /** JSON schema checked with ajv before `register` is called. */
  readonly optionsSchema?: object;
  /** Derives default options from the server configuration; plugin-config options override them. */
  optionsFromConfig?(config: ServerConfig): Partial<TOptions>;
  register(container: AwilixContainer, hooks: KernelHooks, options: TOptions): void | Promise<void>;
}

/**
 * Typed where it is defined (a schema that does not match T fails to compile), stored erased so
 * that lists of plugins with different options can mix.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyPlugin = Plugin<any>;

export function definePlugin<T>(p: Plugin<T> & { optionsSchema?: JSONSchemaType<T> | object }): AnyPlugin {
  return p;
}

export const pluginId = (p: Pick<Plugin, 'kind' | 'name'>): string => `${p.kind}/${p.name}`;
