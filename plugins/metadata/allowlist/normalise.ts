/**
 * The allow-list compares documents as the reference engine does: parsed, so whitespace, comments
 * and the order of arguments and input-object fields do not matter, while field order, aliases,
 * operation and fragment names and variable definitions do; and `__typename` fields are removed
 * first, recursively through fields (but, as in the reference, not inside inline fragments). The
 * canonical form is the printed normalised document.
 */
import {
  Kind,
  print,
  visit,
  type ArgumentNode,
  type DefinitionNode,
  type DocumentNode,
  type ObjectFieldNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';

function stripTypenames(set: SelectionSetNode): SelectionSetNode {
  const selections: SelectionNode[] = [];
  for (const s of set.selections) {
    if (s.kind !== Kind.FIELD) {
      selections.push(s);
      continue;
    }
    if (s.name.value === '__typename') continue;
    selections.push(s.selectionSet ? { ...s, selectionSet: stripTypenames(s.selectionSet) } : s);
  }
  return { ...set, selections };
}

function stripDefinition(d: DefinitionNode): DefinitionNode {
  if (d.kind === Kind.OPERATION_DEFINITION || d.kind === Kind.FRAGMENT_DEFINITION) return { ...d, selectionSet: stripTypenames(d.selectionSet) };
  return d;
}

const byName = <T extends { name: { value: string } }>(items: readonly T[] | undefined): T[] | undefined =>
  items && items.length > 1 ? [...items].sort((a, b) => (a.name.value < b.name.value ? -1 : a.name.value > b.name.value ? 1 : 0)) : (items as T[] | undefined);

export function canonicalQuery(document: DocumentNode): string {
  const stripped: DocumentNode = { ...document, definitions: document.definitions.map(stripDefinition) };
  const sorted = visit(stripped, {
    Field: (node) => ({ ...node, arguments: byName<ArgumentNode>(node.arguments) }),
    Directive: (node) => ({ ...node, arguments: byName<ArgumentNode>(node.arguments) }),
    ObjectValue: (node) => ({ ...node, fields: byName<ObjectFieldNode>(node.fields) ?? [] }),
  });
  return print(sorted);
}

const memo = new WeakMap<DocumentNode, string>();

/** The canonical form of a request document; documents come from the plan cache, so this runs once per query text. */
export function canonicalQueryOf(document: DocumentNode): string {
  let text = memo.get(document);
  if (text === undefined) {
    text = canonicalQuery(document);
    memo.set(document, text);
  }
  return text;
}
