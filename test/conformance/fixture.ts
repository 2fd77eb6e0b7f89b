/** The conformance fixture's rows, shared by every kind's DDL (see suite.ts for the shape). */
export const AUTHORS: ReadonlyArray<[number, string, number | null]> = [
  [1, 'Ann', 5],
  [2, 'bob', null],
  [3, 'Cy', 3],
];

/** Inserted in order without ids, so each kind's own id generator numbers them 1..4. */
export const ARTICLES: ReadonlyArray<[string, number, boolean, number | null]> = [
  ['Alpha', 1, true, 10],
  ['beta', 1, false, 20],
  ['Gamma', 2, true, null],
  ['delta%', 3, true, 5],
];
