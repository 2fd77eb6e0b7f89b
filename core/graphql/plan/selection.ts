/**
 * Selection sets as the IR builders walk them: fragments (named and inline) flattened,
 * `@include`/`@skip` applied, and fields with the same response key merged, as GraphQL's
 * CollectFields does. Database types are all object types, so every fragment that validation
 * let through applies to the selection it is spread into.
 */
import { Kind, type FieldNode, type SelectionNode, type SelectionSetNode, type ValueNode } from 'graphql';
import type { PlanContext } from '../schema-draft.js';
import { astInput, type Input } from './input.js';
import { EngineError } from '../../errors.js';

export interface CollectedField {
  /** Response key: the alias, else the field name. */
  key: string;
  name: string;
  /** Every occurrence of the field under this key (same name and arguments, by validation). */
  nodes: FieldNode[];
}

export function collectFields(set: SelectionSetNode | undefined, ctx: PlanContext): CollectedField[] {
  const out = new Map<string, CollectedField>();
  if (set) collectInto(set.selections, ctx, out, new Set());
  return [...out.values()];
}

function collectInto(
  selections: readonly SelectionNode[],
  ctx: PlanContext,
  out: Map<string, CollectedField>,
  visitedFragments: Set<string>,
): void {
  for (const sel of selections) {
    if (!shouldInclude(sel, ctx)) continue;
    switch (sel.kind) {
      case Kind.FIELD: {
        const key = sel.alias?.value ?? sel.name.value;
        const existing = out.get(key);
        if (existing) existing.nodes.push(sel);
        else out.set(key, { key, name: sel.name.value, nodes: [sel] });
        break;
      }
      case Kind.INLINE_FRAGMENT:
        collectInto(sel.selectionSet.selections, ctx, out, visitedFragments);
        break;
      case Kind.FRAGMENT_SPREAD: {
        const name = sel.name.value;
        if (visitedFragments.has(name)) break;
        visitedFragments.add(name);
        const fragment = ctx.fragments[name];
        if (!fragment) throw new EngineError('validation-failed', `fragment '${name}' is not defined`, { path: '$' });
        collectInto(fragment.selectionSet.selections, ctx, out, visitedFragments);
        break;
      }
    }
  }
}

/** `@skip(if:)` / `@include(if:)`: a variable here changes the statement, so it is read. */
function shouldInclude(sel: SelectionNode, ctx: PlanContext): boolean {
  for (const d of sel.directives ?? []) {
    const name = d.name.value;
    if (name !== 'skip' && name !== 'include') continue;
    const arg = d.arguments?.find((a) => a.name.value === 'if');
    const value = arg ? booleanOf(arg.value, ctx) : false;
    if (name === 'skip' && value) return false;
    if (name === 'include' && !value) return false;
  }
  return true;
}

function booleanOf(node: ValueNode, ctx: PlanContext): boolean {
  if (node.kind === Kind.BOOLEAN) return node.value;
  if (node.kind === Kind.VARIABLE) return ctx.readVariable(node.name.value) === true;
  return false;
}

/** The merged sub-selection of every occurrence of a field. */
export function subSelection(field: CollectedField): SelectionSetNode {
  const selections: SelectionNode[] = [];
  for (const n of field.nodes) if (n.selectionSet) selections.push(...n.selectionSet.selections);
  return { kind: Kind.SELECTION_SET, selections };
}

/** A field's arguments by name, as builder inputs. */
export function argumentsOf(field: CollectedField | FieldNode): Map<string, Input> {
  const node = 'nodes' in field ? field.nodes[0]! : field;
  return new Map((node.arguments ?? []).map((a) => [a.name.value, astInput(a.value)] as const));
}
