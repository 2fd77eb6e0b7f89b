/** The state of one compilation: the parameters being collected, the alias counter, the options. */
import type { CompileOptions } from '../../../../core/sdk/index.js';
import { quoteIdent } from './quote.js';
import { ParamList } from './params.js';

export class CompileContext {
  readonly params = new ParamList();
  private aliasCount = 0;

  constructor(readonly options: CompileOptions) {}

  alias(): string {
    return quoteIdent('_t' + (this.aliasCount++).toString(36));
  }
}

/** The table aliases a condition is written against: the current row, and a permission filter's root. */
export interface Scope {
  cur: string;
  root: string;
}
