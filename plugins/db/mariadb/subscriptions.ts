/**
 * Subscriptions on MariaDB: live queries and streams, polled by the core like any kind without
 * a change feed (every refetch interval). PostgreSQL multiplexes a batch of cohorts into ONE
 * statement through a LATERAL join over the cohorts' values; MariaDB has no LATERAL and its
 * compiler binds values as `?` parameters, so here each cohort runs the ordinary compiled
 * statements of its fields with its own values: per poll, one statement per root field per
 * cohort (a cohort being the subscribers with equal session variables, values and cursor), and
 * two per stream field (below). The core still shares a cohort's result among its subscribers
 * and sends it only when it changed.
 *
 * A stream's batch is `batch_size` rows after the cursor WITH TIES (rows sharing the last cursor
 * value all come in the same batch, as in PostgreSQL, else the next batch would skip them):
 * a first statement reads the cursor column of the next `batch_size` rows (the role's filter and
 * the client's `where` applied); when there are any, its last value bounds the second, which
 * reads the rows after the cursor up to and including that value. That value is the new cursor.
 */
import { createHash } from 'node:crypto';
import {
  and,
  EngineError,
  errors,
  parseLossless,
  unmarkLossless,
  type BoolExpIR,
  type CohortInput,
  type CohortOutput,
  type CompileOptions,
  type MultiplexedStatement,
  type RootFieldIR,
  type StreamIR,
  type SubscriptionFieldIR,
  type TableRef,
  type TypedValueIR,
} from '../../../core/sdk/index.js';
import { compileRootField, type MariaStatement } from './sql/compile.js';

/** Names of the values the stream statements take besides the subscription's own. */
const CURSOR = '\u0000svc-cursor';
const BOUND = '\u0000svc-bound';
const CURSOR_ALIAS = 'c';

/** One compiled statement and where each of its parameters comes from. */
interface FieldStatement {
  statement: MariaStatement;
  /** Per parameter of `statement`: its index in the multiplexed statement's `params`, or the cursor/bound. */
  sources: Array<number | typeof CURSOR | typeof BOUND>;
}

type Part =
  | { kind: 'typename'; key: string; value: string }
  | { kind: 'namespace'; key: string; parts: Part[] }
  | { kind: 'root'; key: string; read: FieldStatement }
  | { kind: 'stream'; key: string; next: FieldStatement; rows: FieldStatement };

export interface MariaMultiplexedStatement extends MultiplexedStatement {
  parts: Part[];
}

/** What running a statement needs from the source connection. */
export type RunStatement = (statement: MariaStatement, sessionJson: string, values: readonly unknown[]) => Promise<string>;

export function compileSubscription(
  fields: readonly SubscriptionFieldIR[],
  options: CompileOptions,
  notNull: (table: TableRef, column: string) => boolean,
): MariaMultiplexedStatement {
  const params: TypedValueIR[] = [];
  let streams = 0;
  const compile = (ir: RootFieldIR): FieldStatement => {
    const statement = compileRootField(ir, options, notNull);
    const sources = statement.params.map((p): number | typeof CURSOR | typeof BOUND => {
      if (p.value.kind === 'variable' && (p.value.name === CURSOR || p.value.name === BOUND)) return p.value.name;
      params.push(p);
      return params.length - 1;
    });
    return { statement, sources };
  };
  const partsOf = (list: readonly SubscriptionFieldIR[]): Part[] =>
    list.map((f): Part => {
      switch (f.kind) {
        case 'typename':
          return { kind: 'typename', key: f.key, value: f.value };
        case 'namespace':
          return { kind: 'namespace', key: f.key, parts: partsOf(f.fields) };
        case 'root':
          return { kind: 'root', key: f.key, read: compile(f.ir) };
        case 'stream': {
          if (++streams > 1) throw errors.notSupported('only one streaming field is allowed in a subscription');
          const { next, rows } = streamStatements(f.ir);
          return { kind: 'stream', key: f.key, next: compile(next), rows: compile(rows) };
        }
      }
    });
  const parts = partsOf(fields);
  const key = createHash('sha256').update(JSON.stringify(parts.map(function texts(p: Part): unknown {
    switch (p.kind) {
      case 'typename':
        return [p.key, p.value];
      case 'namespace':
        return [p.key, p.parts.map(texts)];
      case 'root':
        return [p.key, p.read.statement.text];
      case 'stream':
        return [p.key, p.next.statement.text, p.rows.statement.text];
    }
  }))).digest('hex');
  return { key: `maria:${key}`, params, streaming: streams > 0, parts };
}

/** The two selects of a stream: the cursor values of the next batch, and its rows up to the last of them. */
function streamStatements(ir: StreamIR): { next: RootFieldIR; rows: RootFieldIR } {
  const { column, type, direction } = ir.cursor;
  const compare = (op: '_gt' | '_lt' | '_gte' | '_lte', name: string): BoolExpIR => ({
    kind: 'compare',
    lhs: { kind: 'column', name: column, type },
    op,
    rhs: { value: { kind: 'variable', name, path: [] }, dbType: type },
  });
  const after = compare(direction === 'asc' ? '_gt' : '_lt', CURSOR);
  const upTo = compare(direction === 'asc' ? '_lte' : '_gte', BOUND);
  const sel = ir.select;
  const orderBy = [{ expr: { kind: 'column' as const, name: column, type }, direction, nulls: direction === 'asc' ? ('last' as const) : ('first' as const) }];
  const base = { ...sel, orderBy, distinctOn: [], offset: null };
  const where = (extra: BoolExpIR[]): BoolExpIR => and([...(sel.where ? [sel.where] : []), ...extra]);
  return {
    next: {
      kind: 'select',
      source: ir.source,
      single: false,
      select: { ...base, where: where([after]), limit: ir.batchSize, fields: [{ kind: 'column', alias: CURSOR_ALIAS, name: column, type }] },
    },
    rows: { kind: 'select', source: ir.source, single: false, select: { ...base, where: where([after, upTo]), limit: null, permissionLimit: null } },
  };
}

/** Runs a cohort: each field's statements with the cohort's values; the `data` object as JSON text. */
export async function runCohort(s: MariaMultiplexedStatement, cohort: CohortInput, run: RunStatement): Promise<CohortOutput> {
  const sessionJson = JSON.stringify(cohort.session);
  let cursor: string | null = null;
  const exec = (f: FieldStatement, extra: { cursor?: unknown; bound?: unknown } = {}): Promise<string> =>
    run(
      f.statement,
      sessionJson,
      f.sources.map((src) => (src === CURSOR ? (extra.cursor ?? null) : src === BOUND ? (extra.bound ?? null) : (cohort.values[src] ?? null))),
    );
  const object = async (parts: readonly Part[]): Promise<string> => {
    const texts = await Promise.all(
      parts.map(async (p): Promise<string> => {
        switch (p.kind) {
          case 'typename':
            return JSON.stringify(p.value);
          case 'namespace':
            return object(p.parts);
          case 'root':
            return exec(p.read);
          case 'stream': {
            const next = parseLossless(await exec(p.next, { cursor: cohort.cursor })) as Array<Record<string, unknown>>;
            if (next.length === 0) return '[]';
            const last = unmarkLossless(next[next.length - 1]![CURSOR_ALIAS]);
            if (last === null || last === undefined) throw new EngineError('unexpected', 'a stream cursor column read as null');
            cursor = typeof last === 'string' ? last : JSON.stringify(last);
            return exec(p.rows, { cursor: cohort.cursor, bound: last });
          }
        }
      }),
    );
    return `{${parts.map((p, i) => `${JSON.stringify(p.key)}:${texts[i]}`).join(',')}}`;
  };
  const result = await object(s.parts);
  return { id: cohort.id, result, cursor };
}
