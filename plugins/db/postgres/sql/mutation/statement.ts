/**
 * Building a mutation program's statements: each statement is compiled in its own context (its
 * own placeholder numbering, as the read compiler's), and its parameters are then split into the
 * plan's params (shared by the whole program, bound once per request) and run-time slots.
 */
import type { PgCompileOptions } from '../context.js';
import { CompileContext, type SqlParam } from '../context.js';
import type { ArgSource, PgStatement } from './program.js';
import { statementName } from '../statement-name.js';

const SLOT = Symbol('svc.mutation.slot');
type SlotMarker = { readonly [SLOT]: number };

const slotOf = (p: SqlParam): number | undefined => {
  const v = p.value;
  return v.kind === 'const' && typeof v.value === 'object' && v.value !== null && SLOT in v.value
    ? (v.value as SlotMarker)[SLOT]
    : undefined;
};

export class StatementContext extends CompileContext {
  private readonly slotPlaceholders = new Map<number, string>();

  /** `$n::type` reading slot `slot` (one placeholder per slot, however often it is read). */
  slot(slot: number, type: string): string {
    let ph = this.slotPlaceholders.get(slot);
    if (ph === undefined) {
      const marker: SlotMarker = { [SLOT]: slot };
      ph = this.placeholder({ value: { kind: 'const', value: marker }, dbType: type });
      this.slotPlaceholders.set(slot, ph);
    }
    return `${ph}::${type}`;
  }
}

export class ProgramBuilder {
  readonly params: SqlParam[] = [];
  private slots = 0;

  constructor(readonly options: PgCompileOptions) {}

  newSlot(): number {
    return this.slots++;
  }

  get slotCount(): number {
    return this.slots;
  }

  context(): StatementContext {
    return new StatementContext(this.options);
  }

  /** The statement whose text `ctx` compiled; its params join the program's. */
  finish(ctx: StatementContext, text: string): PgStatement {
    // `$1` (the session) is always sent, and a parameter the text never mentions has no type.
    const full = ctx.usesSession ? text : `${text} WHERE ($1::text IS NULL OR true)`;
    const args = ctx.params.map((p): ArgSource => {
      const slot = slotOf(p);
      if (slot !== undefined) return { kind: 'slot', slot };
      this.params.push(p);
      return { kind: 'param', index: this.params.length - 1 };
    });
    return { text: full, name: statementName(full), args };
  }
}
