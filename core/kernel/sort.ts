/**
 * Orders plugins so each comes after the plugins it depends on, keeping the configured order
 * wherever dependencies allow (a stable topological sort).
 */
import { BootError } from '../errors.js';
import { pluginId, type AnyPlugin } from '../plugin.js';

export function sortPlugins(plugins: readonly AnyPlugin[]): AnyPlugin[] {
  const byId = new Map<string, AnyPlugin>();
  for (const p of plugins) {
    const id = pluginId(p);
    if (byId.has(id)) throw new BootError('E_PLUGIN_DUPLICATE', `plugin '${id}' is listed more than once`);
    byId.set(id, p);
  }
  for (const p of plugins) {
    for (const dep of p.dependsOn ?? []) {
      if (!byId.has(dep)) {
        throw new BootError('E_PLUGIN_DEPENDENCY_MISSING', `'${pluginId(p)}' needs '${dep}', which is not loaded`);
      }
    }
  }

  const sorted: AnyPlugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (p: AnyPlugin, trail: string[]): void => {
    const id = pluginId(p);
    const s = state.get(id);
    if (s === 'done') return;
    if (s === 'visiting') {
      const cycle = [...trail.slice(trail.indexOf(id)), id].join(' -> ');
      throw new BootError('E_PLUGIN_DEPENDENCY_CYCLE', `plugin dependencies form a cycle: ${cycle}`);
    }
    state.set(id, 'visiting');
    for (const dep of p.dependsOn ?? []) visit(byId.get(dep)!, [...trail, id]);
    state.set(id, 'done');
    sorted.push(p);
  };
  for (const p of plugins) visit(p, []);
  return sorted;
}
