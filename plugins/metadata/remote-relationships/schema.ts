/**
 * Remote relationships in a role's schema: fields on table row types (through the draft's
 * table-field extensions) and on remote schema types (through the remote-schemas plugin's
 * providers). A field shows only when the role can read its join columns and sees the target
 * (the remote schema under its permissions, or the other source's table under its select
 * permission).
 */
import type { FieldNode, FragmentDefinitionNode } from 'graphql';
import {
  ADMIN_ROLE,
  schemaKit,
  type CollectedField,
  type ExternalContext,
  type ExtraTableField,
  type PlanContext,
  type SchemaBuildContext,
  type SchemaDraft,
  type TableFieldExtension,
  type TableView,
} from '../../../core/sdk/index.js';
import type { ResolvedRemote } from '../remote-schemas/state.js';
import { remoteStateOf } from '../remote-schemas/state.js';
import { roleRemoteIn, type RemoteTypeField } from '../remote-schemas/schema.js';
import { variablesIn, type RoleRemote } from '../remote-schemas/runtime.js';
import type { JoinTarget } from './definition.js';
import { relationshipStateOf, tableKeyOf } from './resolve.js';
import { pathFields, remoteFieldConfig, remoteJoin } from './to-remote.js';
import { sourceAggregateConfig, sourceAggregateJoin, sourceFieldConfig, sourceJoin, targetView } from './to-source.js';

/** Whether the role sees the remote schema, and the `remote_field` path in its view of it. */
function remoteVisible(ctx: SchemaBuildContext, target: Extract<JoinTarget, { kind: 'remote' }>): boolean {
  const remote = remoteStateOf(ctx.cache).remotes.get(target.remoteSchema);
  if (!remote) return false;
  if (!ctx.config.enableRemoteSchemaPermissions || ctx.role === ADMIN_ROLE) return true;
  const permission = remote.permissions.get(ctx.role);
  return !!permission && typeof pathFields(permission.view, target.path) !== 'string';
}

/** One field node with every occurrence's selections (fields of one response key are merged). */
function mergedNode(f: CollectedField): FieldNode {
  if (f.nodes.length === 1) return f.nodes[0]!;
  const first = f.nodes[0]!;
  const selections = f.nodes.flatMap((n) => n.selectionSet?.selections ?? []);
  return { ...first, selectionSet: first.selectionSet ? { ...first.selectionSet, selections } : undefined };
}

function declaredIn(node: FieldNode, ctx: PlanContext): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of variablesIn(node, ctx.fragments)) {
    const t = ctx.variableType(v);
    if (t) out.set(v, t);
  }
  return out;
}

const requireRemote = (draft: SchemaDraft, name: string): RoleRemote => {
  const role = roleRemoteIn(draft, name);
  if (!role) throw new Error(`remote schema ${name} is not in this schema`);
  return role;
};

/** The extension adding table → remote schema / other source fields to one role's row types. */
export function tableExtension(draft: SchemaDraft, ctx: SchemaBuildContext): TableFieldExtension {
  const state = relationshipStateOf(ctx.cache);
  const options = { stringifyNumericTypes: ctx.config.stringifyNumericTypes };
  return {
    fieldsFor(view: TableView, kit): ExtraTableField[] {
      const rels = state.tables.get(tableKeyOf(view.source, view.table.table));
      if (!rels) return [];
      const readable = new Set(view.columns.map((c) => c.column.name));
      const out: ExtraTableField[] = [];
      for (const rel of rels) {
        const target = rel.target;
        const own = target.kind === 'remote' ? target.lhs : target.mapping.map(([f]) => f);
        if (!own.every((c) => readable.has(c))) continue;
        const columns = own.map((c) => ({ name: c, type: view.table.columnsByName.get(c)!.type }));
        if (target.kind === 'remote') {
          if (!remoteVisible(ctx, target)) continue;
          out.push({
            field: rel.name,
            config: () => remoteFieldConfig(requireRemote(draft, target.remoteSchema), target.path, `${view.table.table.schema}_${view.table.table.name}${rel.name}`)!,
            plan: (f, pctx) => {
              const node = mergedNode(f);
              const join = remoteJoin(requireRemote(draft, target.remoteSchema), target.path, target.lhs, node, pctx.fragments, declaredIn(node, pctx));
              return { kind: 'remoteJoin', alias: f.key, columns, join };
            },
          });
          continue;
        }
        const tv = targetView(kit, target);
        const connection = ctx.cache.sources.get(target.source)?.connection;
        if (!tv || !connection || !target.mapping.every(([, to]) => tv.table.columnsByName.has(to))) continue;
        out.push({
          field: rel.name,
          config: () => sourceFieldConfig(kit, target)!,
          plan: (f, pctx, path) => ({ kind: 'remoteJoin', alias: f.key, columns, join: sourceJoin(tv, target, connection, f, pctx, path, options) }),
        });
        if (sourceAggregateConfig(kit, target)) {
          out.push({
            field: `${rel.name}_aggregate`,
            config: () => sourceAggregateConfig(kit, target)!,
            plan: (f, pctx, path) => ({ kind: 'remoteJoin', alias: f.key, columns, join: sourceAggregateJoin(tv, target, connection, f, pctx, path, options) }),
          });
        }
      }
      return out;
    },
  };
}

function runtimePlanContext(role: string, fragments: Readonly<Record<string, FragmentDefinitionNode>>, ext: ExternalContext, declared: ReadonlyMap<string, string>): PlanContext {
  return {
    schema: undefined as never,
    fragments,
    role,
    readVariable: (n) => ext.variables[n],
    hasVariable: (n) => declared.has(n),
    variableType: (n) => declared.get(n),
  };
}

/** Remote relationships on the types of one remote schema, for one role schema build. */
export function remoteTypeFields(remote: ResolvedRemote, draft: SchemaDraft, ctx: SchemaBuildContext, role: RoleRemote): RemoteTypeField[] {
  const byType = relationshipStateOf(ctx.cache).remoteTypes.get(remote.meta.name);
  if (!byType) return [];
  const options = { stringifyNumericTypes: ctx.config.stringifyNumericTypes };
  const out: RemoteTypeField[] = [];
  for (const [type, rels] of byType) {
    const t = role.view.getType(type) as { getFields?: () => Record<string, unknown> } | undefined;
    const fields = t?.getFields?.();
    if (!fields) continue;
    for (const rel of rels) {
      const target = rel.target;
      const lhs = target.kind === 'remote' ? target.lhs : target.mapping.map(([f]) => f);
      if (!lhs.every((f) => f in fields)) continue;
      if (target.kind === 'remote') {
        if (!remoteVisible(ctx, target)) continue;
        out.push({
          type,
          field: rel.name,
          lhs,
          config: () => remoteFieldConfig(requireRemote(draft, target.remoteSchema), target.path, `${remote.meta.name}_${type}${rel.name}`)!,
          plan: (node, fragments, _ext, declared) => remoteJoin(requireRemote(draft, target.remoteSchema), target.path, target.lhs, node, fragments, declared),
        });
        continue;
      }
      const kit = schemaKit(draft, ctx);
      const tv = targetView(kit, target);
      const connection = ctx.cache.sources.get(target.source)?.connection;
      if (!tv || !connection || !target.mapping.every(([, to]) => tv.table.columnsByName.has(to))) continue;
      out.push({
        type,
        field: rel.name,
        lhs,
        config: () => sourceFieldConfig(kit, target)!,
        plan: (node, fragments, ext, declared) =>
          sourceJoin(tv, target, connection, { key: node.alias?.value ?? node.name.value, name: node.name.value, nodes: [node] }, runtimePlanContext(ctx.role, fragments, ext, declared), '$', options),
      });
      if (sourceAggregateConfig(kit, target)) {
        out.push({
          type,
          field: `${rel.name}_aggregate`,
          lhs,
          config: () => sourceAggregateConfig(kit, target)!,
          plan: (node, fragments, ext, declared) =>
            sourceAggregateJoin(tv, target, connection, { key: node.alias?.value ?? node.name.value, name: node.name.value, nodes: [node] }, runtimePlanContext(ctx.role, fragments, ext, declared), '$', options),
        });
      }
    }
  }
  return out;
}
