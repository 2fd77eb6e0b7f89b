/**
 * The webhook template language (`template_engine: "Kriti"` in transforms): parse once, render
 * many times. Errors carry the reference's `{error_code, message, source_position}` shape.
 */
import type { Json, Node } from './ast.js';
import { KritiError } from './errors.js';
import { evaluate, type KritiScope } from './evaluate.js';
import { parseTemplate } from './parser.js';

export type { Json, Node } from './ast.js';
export { KritiError, type KritiErrorJson } from './errors.js';
export type { KritiScope } from './evaluate.js';
export { renderInString } from './evaluate.js';

export class KritiTemplate {
  private constructor(
    readonly source: string,
    private readonly tree: Node,
  ) {}

  /** Throws KritiError (a "Parse Error") for a bad template. */
  static parse(source: string): KritiTemplate {
    return new KritiTemplate(source, parseTemplate(source));
  }

  /** Throws KritiError for a failure while evaluating. */
  render(scope: KritiScope): Json {
    return evaluate(this.tree, scope);
  }
}

export function isKritiError(e: unknown): e is KritiError {
  return e instanceof KritiError;
}
