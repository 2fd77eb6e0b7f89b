/**
 * Reads a plugin config (config/plugins.json by default) and imports the plugins it lists. A
 * built-in plugin is named by its id and lives in `plugins/<id>/index.js` when the engine runs
 * compiled (dist/), `plugins/<id>/index.ts` from source; a third-party plugin
 * gives a `module` (a path relative to the config file, or a package name) whose default export
 * is the plugin. `--enabled-apis` leaves out `api` plugins of disabled APIs.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BootError } from '../errors.js';
import { pluginId, type AnyPlugin, type ApiName } from '../plugin.js';
import { CODE_ROOT, PACKAGE_ROOT } from '../paths.js';

export const PLUGINS_DIR = join(CODE_ROOT, 'plugins');
export const DEFAULT_PLUGIN_CONFIG = join(PACKAGE_ROOT, 'config', 'plugins.json');

/** The entry file of a built-in plugin folder: compiled JavaScript first, else TypeScript. */
function pluginEntry(dir: string): string | undefined {
  for (const file of ['index.js', 'index.ts']) if (existsSync(join(dir, file))) return join(dir, file);
  return undefined;
}

export interface PluginConfigEntry {
  id: string;
  module?: string;
  options?: unknown;
}

export interface LoadedPlugins {
  plugins: AnyPlugin[];
  options: Record<string, unknown>;
}

export function readPluginConfig(path: string): { entries: PluginConfigEntry[]; baseDir: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new BootError('E_PLUGIN_CONFIG_INVALID', `cannot read plugin config ${path}: ${(e as Error).message}`);
  }
  const list = (raw as { plugins?: unknown })?.plugins;
  if (!Array.isArray(list)) {
    throw new BootError('E_PLUGIN_CONFIG_INVALID', `plugin config ${path} must be an object with a "plugins" array`);
  }
  const entries = list.map((item, i): PluginConfigEntry => {
    if (typeof item === 'string') return { id: item };
    if (item && typeof item === 'object' && typeof (item as { id?: unknown }).id === 'string') {
      const e = item as { id: string; module?: unknown; options?: unknown };
      if (e.module !== undefined && typeof e.module !== 'string') {
        throw new BootError('E_PLUGIN_CONFIG_INVALID', `plugins[${i}].module in ${path} must be a string`);
      }
      return { id: e.id, module: e.module as string | undefined, options: e.options };
    }
    throw new BootError('E_PLUGIN_CONFIG_INVALID', `plugins[${i}] in ${path} must be a plugin id or {"id": ...}`);
  });
  return { entries, baseDir: dirname(path) };
}

/** Ids of the built-in plugins (folders `plugins/<kind>/<name>` with an index.js or index.ts). */
export function builtInPluginIds(): string[] {
  const ids: string[] = [];
  for (const kind of readdirSync(PLUGINS_DIR, { withFileTypes: true })) {
    if (!kind.isDirectory()) continue;
    for (const name of readdirSync(join(PLUGINS_DIR, kind.name), { withFileTypes: true })) {
      if (name.isDirectory() && pluginEntry(join(PLUGINS_DIR, kind.name, name.name))) {
        ids.push(`${kind.name}/${name.name}`);
      }
    }
  }
  return ids.sort();
}

async function importPlugin(entry: PluginConfigEntry, baseDir: string): Promise<AnyPlugin> {
  let specifier: string;
  if (entry.module) {
    const isPath = entry.module.startsWith('.') || isAbsolute(entry.module);
    specifier = isPath ? pathToFileURL(resolve(baseDir, entry.module)).href : entry.module;
  } else {
    const file = /^[a-z0-9-]+\/[a-z0-9-]+$/.test(entry.id) ? pluginEntry(join(PLUGINS_DIR, entry.id)) : undefined;
    if (!file) {
      throw new BootError(
        'E_PLUGIN_UNKNOWN',
        `unknown plugin '${entry.id}'; built-in plugins are: ${builtInPluginIds().join(', ')}`,
      );
    }
    specifier = pathToFileURL(file).href;
  }
  let mod: { default?: unknown };
  try {
    mod = await importModule(specifier);
  } catch (e) {
    throw new BootError('E_PLUGIN_UNKNOWN', `cannot load plugin '${entry.id}': ${(e as Error).message}`, { cause: e });
  }
  const plugin = mod.default as AnyPlugin | undefined;
  if (!plugin || typeof plugin.register !== 'function' || typeof plugin.name !== 'string') {
    throw new BootError('E_PLUGIN_UNKNOWN', `module of plugin '${entry.id}' has no default-exported plugin`);
  }
  if (pluginId(plugin) !== entry.id) {
    throw new BootError('E_PLUGIN_CONFIG_INVALID', `plugin config names '${entry.id}' but the module is '${pluginId(plugin)}'`);
  }
  return plugin;
}

/**
 * Imports a plugin module. A third-party plugin written in TypeScript still loads when the engine
 * runs compiled: on Node's "unknown file extension" the tsx loader is registered, once, and the
 * import retried. The engine's own code never needs it.
 */
async function importModule(specifier: string): Promise<{ default?: unknown }> {
  try {
    return (await import(specifier)) as { default?: unknown };
  } catch (e) {
    if ((e as { code?: string }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw e;
    const { register } = await import('tsx/esm/api');
    register();
    return (await import(specifier)) as { default?: unknown };
  }
}

export async function loadPlugins(path: string, enabledApis: readonly ApiName[]): Promise<LoadedPlugins> {
  const { entries, baseDir } = readPluginConfig(path);
  const plugins: AnyPlugin[] = [];
  const options: Record<string, unknown> = {};
  for (const entry of entries) {
    const plugin = await importPlugin(entry, baseDir);
    if (plugin.kind === 'api' && plugin.api && !enabledApis.includes(plugin.api)) continue;
    plugins.push(plugin);
    if (entry.options !== undefined) options[entry.id] = entry.options;
  }
  return { plugins, options };
}
