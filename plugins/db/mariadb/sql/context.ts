/** The state of one compilation: the slots being collected, the alias counter and the options. */
import type { CompileOptions } from '../../../../core/sdk/index.js';
import { quoteIdent } from './quote.js';
import { SlotList } from './template.js';

export class CompileContext {
  readonly slots = new SlotList();
  private aliasCount = 0;

  constructor(readonly options: CompileOptions) {}

  alias(): string {
    return quoteIdent('_' + (this.aliasCount++).toString(36));
  }
}
