/** The state of one compilation: the slots being collected, the alias counter and the options. */
import type { CompileOptions, TableRef } from '../../../../core/sdk/index.js';
import { quoteIdent } from './quote.js';
import { SlotList } from './template.js';

export class CompileContext {
  readonly slots = new SlotList();
  private aliasCount = 0;

  /**
   * `notNull(table, column)`: whether the column is NOT NULL in the source's last introspection.
   * Sort keys on such columns need no NULL placement term, which would keep SQL Server from
   * reading them in index order.
   */
  constructor(
    readonly options: CompileOptions,
    readonly notNull: (table: TableRef, column: string) => boolean = () => false,
  ) {}

  alias(): string {
    return quoteIdent('_' + (this.aliasCount++).toString(36));
  }
}
