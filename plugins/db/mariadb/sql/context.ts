/** The state of one compilation: the slots being collected, the alias counter and the options. */
import { type CompileOptions, type NotNullColumn, SqlCompileContext } from '../../../../core/sdk/index.js';
import { quoteIdent } from './quote.js';
import { SlotList } from './template.js';

export class CompileContext extends SqlCompileContext<SlotList> {
  constructor(options: CompileOptions, notNull: NotNullColumn = () => false) {
    super(new SlotList(), options, notNull, quoteIdent);
  }
}
