/** The state of one compilation, for SQL compilers built on these blocks: slots, alias counter, options. */
import type { CompileOptions, TableRef } from '../../graphql/ir.js';
import { EngineError } from '../../errors.js';

/** Whether a column is NOT NULL in the source's last introspection. */
export type NotNullColumn = (table: TableRef, column: string) => boolean;

/** `L`: the kind's slot list (a SlotList of its own slot kinds). */
export class SqlCompileContext<L> {
  private aliasCount = 0;

  /**
   * `notNull`: sort keys on NOT NULL columns need no NULL placement term, which would keep the
   * server from reading them in index order (a LIMIT 20 over a primary key became a sort of
   * every row). `quoteIdent` is the dialect's, for the aliases.
   */
  constructor(
    readonly slots: L,
    readonly options: CompileOptions,
    readonly notNull: NotNullColumn,
    private readonly quoteIdent: (name: string) => string,
  ) {}

  alias(): string {
    return this.quoteIdent('_' + (this.aliasCount++).toString(36));
  }
}

/**
 * A GraphQL name (an alias or type name) the compiler writes into the text as a literal or a
 * key; they are checked to be names long before, so anything else is refused rather than escaped.
 */
export function graphqlName(name: string): string {
  if (!/^[_A-Za-z][_0-9A-Za-z]*$/.test(name)) throw new EngineError('unexpected', `not a GraphQL name: ${JSON.stringify(name)}`);
  return name;
}
