/**
 * What a subscription's IR reads (core/graphql/ir-reads.ts walks it): the tables, so change
 * tracking knows what to watch, and the session variables, so subscribers that differ only in
 * variables the query never reads share a cohort.
 */
import type { SubscriptionFieldIR, TableRef } from '../graphql/ir.js';
import { IrReadsWalker } from '../graphql/ir-reads.js';

export interface SubscriptionReads {
  /** Every table read; null when a function call may read tables nobody can name. */
  tables: TableRef[] | null;
  /** Lower-cased session variables read; 'all' when the whole session is passed to a function. */
  sessionVariables: string[] | 'all';
}

export function subscriptionReads(fields: readonly SubscriptionFieldIR[]): SubscriptionReads {
  const w = new IrReadsWalker();
  for (const f of fields) w.field(f);
  return {
    tables: w.callsFunction ? null : [...w.tables.values()],
    sessionVariables: w.wholeSession ? 'all' : [...w.session].sort(),
  };
}
