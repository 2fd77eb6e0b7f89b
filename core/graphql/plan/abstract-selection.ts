/**
 * The selection of a field typed by an abstract type (the relay `Node` interface, the federation
 * `_Entity` union) as it applies to one concrete object type: plain fields, and the inline
 * fragments and named fragments whose type condition is the abstract type or that object type
 * (others are dropped). Named fragments become inline ones, each spread once, so the result can be
 * planned like any object selection.
 */
import { Kind, type FragmentDefinitionNode, type SelectionNode, type SelectionSetNode } from 'graphql';

export function selectionForType(
  set: SelectionSetNode | undefined,
  abstractType: string,
  typeName: string,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
): SelectionSetNode {
  const applies = (cond: string | undefined): boolean => cond === undefined || cond === abstractType || cond === typeName;
  const seen = new Set<string>();
  const walk = (s: SelectionSetNode): SelectionSetNode => {
    const selections: SelectionNode[] = [];
    for (const sel of s.selections) {
      if (sel.kind === Kind.FIELD) selections.push(sel);
      else if (sel.kind === Kind.INLINE_FRAGMENT) {
        if (applies(sel.typeCondition?.name.value)) selections.push({ ...sel, selectionSet: walk(sel.selectionSet) });
      } else {
        const fragment = fragments[sel.name.value];
        if (!fragment || seen.has(sel.name.value) || !applies(fragment.typeCondition.name.value)) continue;
        seen.add(sel.name.value);
        selections.push({ kind: Kind.INLINE_FRAGMENT, directives: sel.directives ?? [], selectionSet: walk(fragment.selectionSet) });
      }
    }
    return { kind: Kind.SELECTION_SET, selections };
  };
  return set ? walk(set) : { kind: Kind.SELECTION_SET, selections: [] };
}
