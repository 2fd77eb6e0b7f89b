/**
 * Template errors in the reference's JSON shape: `{error_code, message, source_position}`, so a
 * client that shows transform errors from the other engine shows ours the same way.
 */
import type { Pos, SourcePosition } from './ast.js';

export type KritiErrorCode = 'Parse Error' | 'Type Error' | 'Attribute Error' | 'Name Error' | 'Function Error' | 'Range Error';

export interface KritiErrorJson {
  error_code: KritiErrorCode;
  message: string;
  source_position: SourcePosition;
}

export class KritiError extends Error {
  constructor(
    readonly code: KritiErrorCode,
    message: string,
    readonly start: Pos,
    readonly end: Pos = start,
  ) {
    super(message);
    this.name = 'KritiError';
  }

  toJSON(): KritiErrorJson {
    return {
      error_code: this.code,
      message: this.message,
      source_position: {
        start_line: this.start.line,
        start_column: this.start.column,
        end_line: this.end.line,
        end_column: this.end.column,
      },
    };
  }
}
