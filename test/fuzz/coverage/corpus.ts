/**
 * The starting corpus: hand-written requests that reach each kind of root field (select, by-pk,
 * aggregate, relationships, distinct_on, every mutation kind, variables of every input type) over
 * the hardening schema and the generated tables with hostile names, plus requests sampled from the
 * fast-check arbitraries (test/fuzz/graphql-inputs.ts), so the fuzzer starts from well-typed
 * inputs and mutates from there.
 */
import fc from 'fast-check';
import { mutationCase, mutationRequest, selectCase, selectRequest } from '../graphql-inputs.js';
import { generatedQuery, type GeneratedTable } from '../generated-schema.js';
import type { FuzzInput } from './mutate.js';

const HAND_WRITTEN: FuzzInput[] = [
  { query: '{ item(where: {name: {_like: "item%"}}, order_by: {id: asc}, limit: 5) { id owner_id name price tags } }', variables: {}, as: 1 },
  { query: '{ item_by_pk(id: 3) { id owner_id name parent { id owner_id } } }', variables: {}, as: 'admin' },
  { query: 'query($id: Int!) { item_by_pk(id: $id) { id owner_id token } }', variables: { id: 4 }, as: 'admin' },
  {
    query: '{ item_aggregate(where: {price: {_gt: 3}}) { aggregate { count sum { price } avg { price } max { name } } nodes { id owner_id } } }',
    variables: {},
    as: 2,
  },
  { query: '{ item(distinct_on: [owner_id], order_by: [{owner_id: asc}, {id: desc}]) { id owner_id } }', variables: {}, as: 'admin' },
  {
    query: '{ item(where: {_or: [{tags: {_contains: {n: 3}}}, {tags: {_has_key: "n"}}, {_not: {parent: {name: {_ilike: "%1%"}}}}]}) { id owner_id tags } }',
    variables: {},
    as: 3,
  },
  {
    query: 'query($w: item_bool_exp, $o: [item_order_by!], $l: Int) { item(where: $w, order_by: $o, limit: $l) { id owner_id name } }',
    variables: { w: { name: { _in: ["o'neil", 'a\\b'] } }, o: [{ price: 'desc_nulls_last' }], l: 3 },
    as: 1,
  },
  { query: 'mutation { insert_item(objects: [{name: "x\'y", price: 1.5, tags: {k: "v"}}]) { affected_rows returning { id owner_id } } }', variables: {}, as: 1 },
  { query: 'mutation { insert_item_one(object: {name: "one", parent_id: 2}) { id owner_id } }', variables: {}, as: 2 },
  {
    query: 'mutation($s: item_set_input, $w: item_bool_exp!) { update_item(where: $w, _set: $s) { affected_rows returning { id owner_id } } }',
    variables: { w: { id: { _lt: 10 } }, s: { name: 'renamed', tags: ['a', 1] } },
    as: 1,
  },
  { query: 'mutation { update_item_by_pk(pk_columns: {id: 2}, _inc: {price: 1}) { id owner_id price } }', variables: {}, as: 3 },
  {
    query: 'mutation { update_item_many(updates: [{where: {id: {_eq: 1}}, _set: {name: "a"}}, {where: {id: {_eq: 2}}, _append: {tags: {z: 1}}}]) { affected_rows } }',
    variables: {},
    as: 2,
  },
  { query: 'mutation { delete_item(where: {name: {_eq: "nothing"}}) { affected_rows returning { id owner_id } } }', variables: {}, as: 1 },
  { query: 'mutation { delete_item_by_pk(id: 30) { id owner_id } }', variables: {}, as: 'admin' },
  {
    query: 'mutation { insert_item(objects: [{id: 1, name: "dup"}], on_conflict: {constraint: item_pkey, update_columns: [name]}) { affected_rows } }',
    variables: {},
    as: 'admin',
  },
];

/** Seeds for the hardening schema and the generated tables; `seed` makes the sampled part repeatable. */
export function seedCorpus(tables: readonly GeneratedTable[], seed: number): FuzzInput[] {
  const user = (i: number): number => 1 + (i % 3);
  const selects = fc.sample(selectCase(true), { numRuns: 20, seed }).map((c, i): FuzzInput => ({ ...selectRequest(c), as: i % 2 ? 'admin' : user(i) }));
  const mutations = fc.sample(mutationCase, { numRuns: 12, seed: seed + 1 }).map((c, i): FuzzInput => ({ ...mutationRequest(c), as: user(i) }));
  const generated = fc.sample(generatedQuery(tables), { numRuns: 8, seed: seed + 2 }).map((query): FuzzInput => ({ query, variables: {}, as: 'admin' }));
  return [...HAND_WRITTEN, ...selects, ...mutations, ...generated];
}
