/**
 * The state threaded through one compilation: the parameter list being built, the alias
 * counter and the options. One context per statement; nothing is shared between statements.
 */
import type { CompileOptions, TypedValueIR } from '../../../../core/sdk/index.js';
import { quoteIdent, quoteLiteral } from './quote.js';

/**
 * A parameter as the compiler records it. `check` marks values the binder must validate before
 * they reach the database (a negative LIMIT is a client error, not a database error).
 */
export interface SqlParam extends TypedValueIR {
  readonly check?: 'limit' | 'offset';
}

/** What a kind of the PostgreSQL family asks of this compiler beyond the engine's options. */
export interface PgCompileOptions extends CompileOptions {
  /**
   * Build every row with `json_build_object`, never `row_to_json` of a lateral: Citus cannot
   * plan that lateral in every join between its kinds of tables (the reference does the same).
   */
  rowsWithJsonBuildObject?: boolean;
}

/** Parameter 1 is always the session JSON, so the statement's own parameters start at 2. */
const FIRST_PARAM = 2;

export class CompileContext {
  readonly params: SqlParam[] = [];
  readonly options: PgCompileOptions;
  /** Whether the text reads `$1` (a session variable). */
  usesSession = false;
  private readonly paramIndex = new Map<string, number>();
  private aliasCount = 0;

  constructor(options: PgCompileOptions) {
    this.options = options;
  }

  /** A fresh, short alias (`_0`, `_1`, ...): unique within the statement, far below 63 bytes. */
  alias(): string {
    return quoteIdent('_' + (this.aliasCount++).toString(36));
  }

  /**
   * The placeholder (`$n`) for a constant or GraphQL variable. Identical values with the same
   * type share a placeholder, so a value repeated in a filter is sent once.
   */
  placeholder(p: SqlParam): string {
    const key = dedupeKey(p);
    let n = key === null ? undefined : this.paramIndex.get(key);
    if (n === undefined) {
      this.params.push(p);
      n = this.params.length - 1;
      if (key !== null) this.paramIndex.set(key, n);
    }
    return this.paramRef(n);
  }

  /** How the text reads `params[index]`: a placeholder after the session's `$1`. */
  protected paramRef(index: number): string {
    return '$' + (index + FIRST_PARAM);
  }

  /** SQL giving one session variable's value as text (the name lower-cased by the caller). */
  sessionText(name: string): string {
    this.usesSession = true;
    return `($1::json->>${quoteLiteral(name)})`;
  }

  /** SQL giving the whole session JSON (of type json, or text a cast can read as json). */
  sessionJson(): string {
    this.usesSession = true;
    return '$1';
  }
}

function dedupeKey(p: SqlParam): string | null {
  const head = `${p.check ?? ''}|${p.dbType}|${p.array === true ? 1 : 0}|`;
  const v = p.value;
  switch (v.kind) {
    case 'variable':
      return head + 'v|' + v.name + '|' + JSON.stringify(v.path);
    case 'const': {
      // Constants that JSON cannot represent faithfully (undefined, bigint, Date...) keep
      // their own placeholder rather than risk merging two different values.
      const c = v.value;
      if (c === null || typeof c === 'string' || typeof c === 'boolean' || (typeof c === 'number' && Number.isFinite(c))) {
        return head + 'c|' + JSON.stringify(c);
      }
      return null;
    }
    case 'session':
      return null;
  }
}
