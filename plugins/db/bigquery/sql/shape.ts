/**
 * How a statement's result becomes the response's JSON. BigQuery STRUCT fields are named
 * `f0`, `f1`, ... by position (GraphQL aliases may differ only in case, which BigQuery field names
 * may not), so the shape keeps the response keys, in the same order, beside constants the
 * statement does not compute (`__typename`).
 */
export type Shape =
  /**
   * A STRUCT (or a REPEATED STRUCT: an array of such objects). `aggregate`: a NULL one (no related
   * row joined) is written with its counts 0 and its other values null.
   */
  | { kind: 'object'; entries: ShapeEntry[]; aggregate?: true }
  /** A scalar cell, written by its result type; `count`: 0 when its aggregate STRUCT is NULL. */
  | { kind: 'scalar'; count?: true };

export type ShapeEntry =
  /** The response key takes STRUCT field `index`. */
  | { key: string; field: number; shape: Shape }
  /** The response key takes a constant (a type name), never sent to BigQuery. */
  | { key: string; constant: string };

export const SCALAR: Shape = { kind: 'scalar' };
