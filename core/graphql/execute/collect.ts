/**
 * Collects the fields of a selection set as GraphQL's CollectFields does: through named and inline
 * fragments whose type condition applies, honouring @include/@skip. Directive arguments that are
 * variables are read through `readVariable`, which records them as shaping the plan.
 */
import { Kind, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode, type ValueNode } from 'graphql';
import type { GraphQLObjectType } from 'graphql';

export type ReadVariable = (name: string) => unknown;

function directiveValue(value: ValueNode, readVariable: ReadVariable): boolean {
  if (value.kind === Kind.BOOLEAN) return value.value;
  if (value.kind === Kind.VARIABLE) return readVariable(value.name.value) === true;
  return false;
}

export function shouldInclude(
  node: { directives?: readonly { name: { value: string }; arguments?: readonly { name: { value: string }; value: ValueNode }[] }[] },
  readVariable: ReadVariable,
): boolean {
  for (const d of node.directives ?? []) {
    const arg = d.arguments?.find((a) => a.name.value === 'if');
    if (!arg) continue;
    if (d.name.value === 'skip' && directiveValue(arg.value, readVariable)) return false;
    if (d.name.value === 'include' && !directiveValue(arg.value, readVariable)) return false;
  }
  return true;
}

/** Fields by response key, in first-occurrence order. */
export function collectFields(
  type: GraphQLObjectType,
  selectionSet: SelectionSetNode,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  readVariable: ReadVariable,
  into: Map<string, FieldNode[]> = new Map(),
  visited: Set<string> = new Set(),
): Map<string, FieldNode[]> {
  for (const selection of selectionSet.selections) {
    if (!shouldInclude(selection, readVariable)) continue;
    if (selection.kind === Kind.FIELD) {
      const key = selection.alias?.value ?? selection.name.value;
      const list = into.get(key);
      if (list) list.push(selection);
      else into.set(key, [selection]);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const cond = selection.typeCondition?.name.value;
      if (cond && cond !== type.name) continue;
      collectFields(type, selection.selectionSet, fragments, readVariable, into, visited);
    } else {
      const name = selection.name.value;
      if (visited.has(name)) continue;
      visited.add(name);
      const fragment = fragments[name];
      if (!fragment || fragment.typeCondition.name.value !== type.name) continue;
      collectFields(type, fragment.selectionSet, fragments, readVariable, into, visited);
    }
  }
  return into;
}
