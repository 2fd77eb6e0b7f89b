/**
 * How a statement's result becomes the response's JSON. BigQuery STRUCT fields are named
 * `f0`, `f1`, ... by position (GraphQL aliases may differ only in case, which BigQuery field names
 * may not), so the shape keeps the response keys, in the same order, beside constants the
 * statement does not compute (`__typename`).
 */
export type Shape =
  /** A STRUCT (or a REPEATED STRUCT: an array of such objects). */
  | { kind: 'object'; entries: ShapeEntry[] }
  /** A scalar cell, written by its result type. */
  | { kind: 'scalar' };

export type ShapeEntry =
  /** The response key takes STRUCT field `index`. */
  | { key: string; field: number; shape: Shape }
  /** The response key takes a constant (a type name), never sent to BigQuery. */
  | { key: string; constant: string };

export const SCALAR: Shape = { kind: 'scalar' };
