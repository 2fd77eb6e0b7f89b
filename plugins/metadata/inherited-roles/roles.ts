/**
 * The `inherited_roles` section: `[{role_name, role_set}]`. Reading it, the roles that exist in a
 * metadata document (the reference's "all roles": every role named by a permission anywhere, and
 * the inherited roles themselves), and the order to derive them in, parents first.
 */
import { EngineError, PERMISSION_LIST_KEY, PERMISSION_TYPES, type MetadataDocument } from '../../../core/sdk/index.js';

export interface InheritedRole {
  role_name: string;
  role_set: string[];
}

export const FEATURE_FLAG = 'inherited_roles';

export const FEATURE_DISABLED_MESSAGE = 'inherited role can only be added when inherited_roles enabled in the experimental features';

/** `inherited_role <name>`: the object the reference reports an inherited role under. */
export const inheritedRoleObjectName = (role: string): string => `inherited_role ${role}`;

export function inheritedRolesOf(doc: MetadataDocument): InheritedRole[] {
  return (doc.inherited_roles ?? []).map((r) => ({
    role_name: String(r['role_name']),
    role_set: Array.isArray(r['role_set']) ? (r['role_set'] as unknown[]).map(String) : [],
  }));
}

const rolesOf = (list: unknown): string[] =>
  Array.isArray(list) ? list.map((p) => (p as { role?: unknown }).role).filter((r): r is string => typeof r === 'string') : [];

/** Every role a permission in the document names, plus the inherited roles. */
export function allRoles(doc: MetadataDocument): Set<string> {
  const roles = new Set<string>();
  for (const source of doc.sources) {
    for (const table of source.tables) {
      for (const type of PERMISSION_TYPES) for (const r of rolesOf(table[PERMISSION_LIST_KEY[type]])) roles.add(r);
    }
    for (const fn of (source['functions'] as Array<Record<string, unknown>> | undefined) ?? []) for (const r of rolesOf(fn['permissions'])) roles.add(r);
  }
  for (const action of doc.actions ?? []) for (const r of rolesOf(action['permissions'])) roles.add(r);
  for (const remote of doc.remote_schemas ?? []) for (const r of rolesOf(remote['permissions'])) roles.add(r);
  for (const r of inheritedRolesOf(doc)) roles.add(r.role_name);
  return roles;
}

/**
 * The inherited roles in derivation order (a parent that is itself inherited comes first). A
 * cycle is refused as the reference refuses it: `found cycle(s) in roles: ["a","b","a"]`.
 */
export function orderRoles(roles: readonly InheritedRole[]): InheritedRole[] {
  const byName = new Map(roles.map((r) => [r.role_name, r] as const));
  const ordered: InheritedRole[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const cycles: string[][] = [];
  const visit = (r: InheritedRole, stack: string[]): void => {
    const s = state.get(r.role_name);
    if (s === 'done') return;
    if (s === 'visiting') {
      const from = stack.indexOf(r.role_name);
      cycles.push([...stack.slice(from), r.role_name]);
      return;
    }
    state.set(r.role_name, 'visiting');
    for (const parent of r.role_set) {
      const p = byName.get(parent);
      if (p) visit(p, [...stack, r.role_name]);
    }
    state.set(r.role_name, 'done');
    ordered.push(r);
  };
  for (const r of roles) visit(r, []);
  if (cycles.length > 0) {
    const text = cycles.map((c) => `[${c.map((n) => JSON.stringify(n)).join(',')}]`).join(', ');
    throw new EngineError('cyclic-dependency', `found cycle(s) in roles: ${text}`);
  }
  return ordered;
}
