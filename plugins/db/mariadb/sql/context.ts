/** The state of one compilation: the slots being collected, the alias counter and the options. */
import type { CompileOptions, TableRef } from '../../../../core/sdk/index.js';
import { quoteIdent } from './quote.js';
import { SlotList } from './template.js';

export class CompileContext {
  readonly slots = new SlotList();
  private aliasCount = 0;

  /**
   * `notNull(table, column)`: whether the column is NOT NULL in the source's last introspection.
   * Sort keys on such columns need no NULL placement term, which would keep MariaDB from reading
   * them in index order (a LIMIT 20 over a primary key became a sort of every row).
   */
  constructor(
    readonly options: CompileOptions,
    readonly notNull: (table: TableRef, column: string) => boolean = () => false,
  ) {}

  alias(): string {
    return quoteIdent('_' + (this.aliasCount++).toString(36));
  }
}
