/**
 * The syntax tree of the webhook template language (the reference engine's "Kriti"): a JSON
 * superset whose values may be `{{ expression }}` templates, interpolated strings, conditionals
 * and loops. Every node keeps where it started so errors can point at the template text.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface SourcePosition {
  start_line: number;
  start_column: number;
  end_line: number;
  end_column: number;
}

export interface Pos {
  line: number;
  column: number;
}

export type BinaryOp = '==' | '!=' | '>' | '<' | '>=' | '<=' | '&&' | '||' | 'in' | '??';

export type Node =
  | { k: 'literal'; value: Json; pos: Pos }
  | { k: 'object'; fields: Array<[Node, Node]>; pos: Pos }
  | { k: 'array'; items: Node[]; pos: Pos }
  /** A string with `{{ }}` interpolations: literal text and expressions, concatenated. */
  | { k: 'string'; parts: Array<string | Node>; pos: Pos }
  | { k: 'var'; name: string; pos: Pos }
  | { k: 'field'; target: Node; key: Node; optional: boolean; pos: Pos }
  | { k: 'binary'; op: BinaryOp; left: Node; right: Node; pos: Pos }
  | { k: 'not'; operand: Node; pos: Pos }
  | { k: 'call'; fn: string; arg: Node; pos: Pos }
  | { k: 'if'; branches: Array<[Node, Node]>; otherwise: Node; pos: Pos }
  | { k: 'range'; index: string | null; item: string; over: Node; body: Node; pos: Pos };
