/**
 * Static measures of an operation for the depth and node limits, as the reference documents
 * them: depth is the nesting of fields that have a selection set (fragments add no level:
 * `viewer { ... on User { name } }` is 1), nodes are the fields that have a selection set.
 * Introspection (`__schema`, `__type`) is exempt. Fragments are measured once each (memoised), so a
 * document that spreads fragments exponentially costs linear time; results are kept per operation
 * node, which the plan cache shares between requests.
 */
import { Kind, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import {
  type LimitedOperation,
} from '../../../core/sdk/index.js';

export interface OperationMeasures {
  depth: number;
  nodes: number;
}

const INTROSPECTION = new Set(['__schema', '__type']);

function measure(definition: OperationDefinitionNode, fragments: Readonly<Record<string, FragmentDefinitionNode>>): OperationMeasures {
  const memo = new Map<string, OperationMeasures>();
  const ofSet = (set: SelectionSetNode): OperationMeasures => {
    let depth = 0;
    let nodes = 0;
    for (const s of set.selections) {
      let inner: OperationMeasures;
      if (s.kind === Kind.FIELD) {
        if (!s.selectionSet || INTROSPECTION.has(s.name.value)) continue;
        const child = ofSet(s.selectionSet);
        inner = { depth: child.depth + 1, nodes: child.nodes + 1 };
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        inner = ofSet(s.selectionSet);
      } else {
        const name = s.name.value;
        let known = memo.get(name);
        if (!known) {
          const fragment = fragments[name];
          known = fragment ? ofSet(fragment.selectionSet) : { depth: 0, nodes: 0 };
          memo.set(name, known);
        }
        inner = known;
      }
      if (inner.depth > depth) depth = inner.depth;
      nodes += inner.nodes;
    }
    return { depth, nodes };
  };
  return ofSet(definition.selectionSet);
}

const measured = new WeakMap<OperationDefinitionNode, OperationMeasures>();

export function measuresOf(operation: LimitedOperation): OperationMeasures {
  let m = measured.get(operation.definition);
  if (!m) {
    m = measure(operation.definition, operation.fragments);
    measured.set(operation.definition, m);
  }
  return m;
}
