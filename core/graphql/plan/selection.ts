/**
 * Selection sets as the IR builders walk them: fragments (named and inline) flattened,
 * `@include`/`@skip` applied, and fields with the same response key merged, as GraphQL's
 * CollectFields does. Database types are all object types, so every fragment that validation
 * let through applies to the selection it is spread into.
 */
import { Kind, type FieldNode, type FragmentDefinitionNode, type SelectionNode, type SelectionSetNode, type ValueNode } from 'graphql';
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
  if (!set) return [];
  const byKey = collectFieldNodes(set, { fragments: ctx.fragments, readVariable: (n) => ctx.readVariable(n), strict: true });
  return [...byKey].map(([key, nodes]) => ({ key, name: nodes[0]!.name.value, nodes }));
}

export interface CollectOptions {
  fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  /** Reads a directive's variable (the plan records it as shaping the statement). */
  readVariable(name: string): unknown;
  /** Only fragments whose type condition names this type apply (the root operation types). */
  typeName?: string;
  /** A spread of an undefined fragment is a validation error (else it is skipped). */
  strict?: boolean;
}

/**
 * The one field collector: the fields of a selection set by response key, in first-occurrence
 * order, through named and inline fragments, honouring `@include`/`@skip`.
 */
export function collectFieldNodes(
  set: SelectionSetNode,
  opts: CollectOptions,
  into: Map<string, FieldNode[]> = new Map(),
  visited: Set<string> = new Set(),
): Map<string, FieldNode[]> {
  for (const sel of set.selections) {
    if (!shouldInclude(sel, opts)) continue;
    switch (sel.kind) {
      case Kind.FIELD: {
        const key = sel.alias?.value ?? sel.name.value;
        const list = into.get(key);
        if (list) list.push(sel);
        else into.set(key, [sel]);
        break;
      }
      case Kind.INLINE_FRAGMENT: {
        const cond = sel.typeCondition?.name.value;
        if (opts.typeName !== undefined && cond && cond !== opts.typeName) break;
        collectFieldNodes(sel.selectionSet, opts, into, visited);
        break;
      }
      case Kind.FRAGMENT_SPREAD: {
        const name = sel.name.value;
        if (visited.has(name)) break;
        visited.add(name);
        const fragment = opts.fragments[name];
        if (!fragment) {
          if (opts.strict) throw new EngineError('validation-failed', `fragment '${name}' is not defined`, { path: '$' });
          break;
        }
        if (opts.typeName !== undefined && fragment.typeCondition.name.value !== opts.typeName) break;
        collectFieldNodes(fragment.selectionSet, opts, into, visited);
        break;
      }
    }
  }
  return into;
}

/** `@skip(if:)` / `@include(if:)`: a variable here changes the statement, so it is read. */
function shouldInclude(sel: SelectionNode, opts: CollectOptions): boolean {
  for (const d of sel.directives ?? []) {
    const name = d.name.value;
    if (name !== 'skip' && name !== 'include') continue;
    const arg = d.arguments?.find((a) => a.name.value === 'if');
    if (!arg) continue;
    const value = booleanOf(arg.value, opts);
    if (name === 'skip' && value) return false;
    if (name === 'include' && !value) return false;
  }
  return true;
}

function booleanOf(node: ValueNode, opts: CollectOptions): boolean {
  if (node.kind === Kind.BOOLEAN) return node.value;
  if (node.kind === Kind.VARIABLE) return opts.readVariable(node.name.value) === true;
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
