/**
 * Operations that change how a tracked table is served: its customization (replaced whole, as in
 * the reference), whether it is an enum table, and its federation setting. Each rebuilds and
 * fails with the table's inconsistency if the change makes it unservable.
 */
import {
  assertConsistent,
  type OperationContext,
  type OperationResult,
  SUCCESS,
  type TableConfiguration,
  type TableMetadata,
  tableObjectName,
  type TableTarget,
} from '../../../core/sdk/index.js';
import { setFederation } from './federation.js';
import { isEmptyConfiguration } from './table-config.js';

type Tracked = TableTarget & { meta: TableMetadata };

async function changed(ctx: OperationContext, t: Tracked): Promise<OperationResult> {
  ctx.markChanged();
  await assertConsistent(ctx, [tableObjectName(t.source.name, t.table)]);
  return SUCCESS;
}

export async function setTableCustomization(ctx: OperationContext, t: Tracked, configuration: TableConfiguration): Promise<OperationResult> {
  if (isEmptyConfiguration(configuration)) delete t.meta.configuration;
  else t.meta.configuration = configuration;
  return changed(ctx, t);
}

export async function setTableIsEnum(ctx: OperationContext, t: Tracked, isEnum: boolean): Promise<OperationResult> {
  if (isEnum) t.meta.is_enum = true;
  else delete t.meta.is_enum;
  return changed(ctx, t);
}

export async function setFederationConfig(ctx: OperationContext, t: Tracked, config: { enable: string } | null): Promise<OperationResult> {
  setFederation(t.meta, config);
  return changed(ctx, t);
}

/** Legacy `set_table_custom_fields`: root fields and column names replace the whole configuration. */
export function customFieldsConfiguration(rootFields: TableConfiguration['custom_root_fields'], columnNames: Record<string, string>): TableConfiguration {
  const configuration: TableConfiguration = {};
  if (rootFields && Object.keys(rootFields).length) configuration.custom_root_fields = rootFields;
  const columns = Object.entries(columnNames);
  if (columns.length) configuration.column_config = Object.fromEntries(columns.map(([c, name]) => [c, { custom_name: name }]));
  return configuration;
}

