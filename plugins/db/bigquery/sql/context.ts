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
  /**
   * The joins of the FROM the condition or sort key belongs to: values over related rows
   * (aggregates, a related row's column) join a grouped derived table there, since BigQuery
   * cannot de-correlate most correlated subqueries over other tables.
   */
  joins?: string[];
}
