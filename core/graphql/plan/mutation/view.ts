/**
 * One table as one role may write it: which columns it may insert or update, its presets, its
 * row filters and checks (as IR, built on first use), the relationships it may insert through,
 * and the type names of the mutation schema. Built once per role schema (../../schema/mutation),
 * read by both the GraphQL types and the mutation IR builders, like `TableView` for reads.
 */
import type { BoolExpIR, TableRef } from '../../ir.js';
import type { ColumnValueIR } from '../../ir-mutation.js';
import type { ResolvedRelationship, ResolvedTable } from '../../../schema-cache/model.js';
import type { Naming } from '../../schema/naming.js';
import type { ColumnView, TableView } from '../view.js';

export interface MutationTypeNames {
  insertInput: string;
  objRelInsertInput: string;
  arrRelInsertInput: string;
  onConflict: string;
  constraint: string;
  updateColumn: string;
  setInput: string;
  incInput: string;
  /** `<t>_append_input` etc., by operator (`_append`, `_prepend`, `_delete_key`, ...). */
  opInput(op: string): string;
  pkColumnsInput: string;
  updates: string;
  mutationResponse: string;
}

export interface ColumnAccess {
  columns: ColumnView[];
  /** By GraphQL field name. */
  byField: ReadonlyMap<string, ColumnView>;
}

export interface InsertRelationshipView {
  rel: ResolvedRelationship;
  field: string;
  target: MutationView;
}

export interface UniqueConstraintView {
  name: string;
  columns: string[];
}

export interface MutationView {
  source: string;
  table: ResolvedTable;
  ref: TableRef;
  naming: Naming;
  names: MutationTypeNames;
  /** The role's select view of the table; null without select permission (no `returning`). */
  select: TableView | null;
  /** What `where` arguments are read against: the select view, or one without fields. */
  filter: TableView;
  /** Insertable columns the role may give (permitted, not preset); null: no insert permission. */
  insert: ColumnAccess | null;
  /** Updatable columns the role may set (permitted, not preset); null: no update permission. */
  update: ColumnAccess | null;
  /** Whether the role may delete. */
  canDelete: boolean;
  /** Relationships to tables the role may insert into, by field name (filled after all views exist). */
  insertRelationships: ReadonlyMap<string, InsertRelationshipView>;
  /** Primary key and unique constraints with GraphQL-valid names (upsert targets). */
  constraints: UniqueConstraintView[];
  /** The select-permitted primary key columns, or null when `_by_pk` fields cannot exist. */
  primaryKey: ColumnView[] | null;
  insertCheck(): BoolExpIR | null;
  insertPresets(): ColumnValueIR[];
  updateFilter(): BoolExpIR | null;
  updateCheck(): BoolExpIR | null;
  updatePresets(): ColumnValueIR[];
  deleteFilter(): BoolExpIR | null;
}
