/**
 * Where asynchronous actions wait and keep their results: the interface the actions plugin and
 * the async-action runner use (the PostgreSQL implementation beside the metadata is
 * action-log-pg.ts). Rows move created → processing → completed | error; a claim is exclusive
 * across engines, and a result is readable only with the session variables it was created with.
 */
import { asValue, type AwilixContainer, type Json } from '../../../core/sdk/index.js';
import { PgActionLogStore } from './action-log-pg.js';
import { catalogDatabase } from '../../db/postgres/catalog-table-store.js';

export interface NewActionRequest {
  actionName: string;
  input: Json;
  sessionVariables: Readonly<Record<string, string>>;
  requestHeaders: Array<{ name: string; value: string }>;
}

export interface ClaimedAction {
  id: string;
  actionName: string;
  input: Json;
  sessionVariables: Record<string, string>;
  requestHeaders: Array<{ name: string; value: string }>;
}

export interface ActionResult {
  id: string;
  createdAt: string;
  status: 'created' | 'processing' | 'completed' | 'error';
  output: Json;
  errors: Json;
}

export interface ActionLogStore {
  init(): Promise<void>;
  create(request: NewActionRequest): Promise<{ id: string; createdAt: string }>;
  /** Created rows (and processing ones older than the lock timeout), moved to processing. */
  claim(limit: number, lockTimeoutSeconds: number): Promise<ClaimedAction[]>;
  complete(id: string, output: Json): Promise<void>;
  fail(id: string, errors: Json): Promise<void>;
  /** Back to created (shutdown). */
  release(ids: readonly string[]): Promise<void>;
  /** The row, if it exists for this action and (unless `anySession`) these session variables. */
  read(actionName: string, id: string, sessionVariables: Readonly<Record<string, string>>, anySession: boolean): Promise<ActionResult | null>;
  clear(actionName: string): Promise<void>;
  close(): Promise<void>;
}

const KEY = 'actionLogStore';

export function registerActionLogStore(container: AwilixContainer): void {
  let store: ActionLogStore | undefined;
  container.register(KEY, asValue({
    get(): ActionLogStore {
      store ??= new PgActionLogStore(catalogDatabase(container, 'asynchronous actions'));
      return store;
    },
    async close(): Promise<void> {
      await store?.close();
      store = undefined;
    },
  }));
}

export function actionLogStore(container: AwilixContainer): ActionLogStore {
  return container.resolve<{ get(): ActionLogStore }>(KEY).get();
}

export async function closeActionLogStore(container: AwilixContainer): Promise<void> {
  await container.resolve<{ close(): Promise<void> }>(KEY).close();
}
