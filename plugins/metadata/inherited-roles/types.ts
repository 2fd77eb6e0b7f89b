/** The engine types this plugin reads, through the SDK. */
import type { ResolvedTable } from '../../../core/sdk/index.js';

export type {
  BoolExpJson,
  DeletePermission,
  InsertPermission,
  SelectPermission,
  UpdatePermission,
} from '../../../core/sdk/index.js';

export type ResolvedTableForInheritance = Pick<ResolvedTable, 'columns'>;
