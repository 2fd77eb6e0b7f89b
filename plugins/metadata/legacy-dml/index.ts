/**
 * The legacy data operations: `select`, `insert`, `update`, `delete`, `count`. They answer on
 * `/v1/query` and `/v2/query` (also inside their bulks), for any role: each one applies the
 * session role's permissions, and the metadata service lets a request made only of them
 * through without admin (see `dataOperationTypes`). The args become the same query/mutation IR
 * GraphQL root fields become and run through the source's database plugin; nothing here writes
 * SQL, and nothing here changes the metadata. Taps `onMetadataOperation` only; safe to disable
 * (the operations then answer "unknown operation type").
 */
import {
  type ArgsObject,
  dataOperationTypes,
  definePlugin,
  type OperationResult,
  type PrefixedHandler,
  RawJsonBody,
  registerMetadataOperations,
} from '../../../core/sdk/index.js';
import { COUNT_KEYS, countIR } from './count.js';
import { deleteIR } from './delete.js';
import { insertIR } from './insert.js';
import { runMutationIR, runQueryIR } from './run.js';
import { selectIR } from './select.js';
import { dmlContext, type DmlContext } from './target.js';
import { updateIR } from './update.js';

const PLUGIN_ID = 'metadata/legacy-dml';

type Handler = (dc: DmlContext, args: ArgsObject) => Promise<OperationResult>;

const OPERATIONS: Readonly<Record<string, Handler>> = {
  select: async (dc, args) => ({ body: new RawJsonBody(await runQueryIR(dc, selectIR(dc, args))) }),
  count: async (dc, args) => {
    const answer = JSON.parse(await runQueryIR(dc, countIR(dc, args))) as Record<string, Record<string, unknown>>;
    return { body: { count: Number(answer[COUNT_KEYS.aggregate]?.[COUNT_KEYS.count] ?? 0) } };
  },
  insert: async (dc, args) => ({ body: new RawJsonBody(await runMutationIR(dc, insertIR(dc, args))) }),
  update: async (dc, args) => ({ body: new RawJsonBody(await runMutationIR(dc, updateIR(dc, args))) }),
  delete: async (dc, args) => ({ body: new RawJsonBody(await runMutationIR(dc, deleteIR(dc, args))) }),
};

export default definePlugin({
  name: 'legacy-dml',
  kind: 'metadata',
  // The legacy operations act on the `pg` kind's sources.
  dependsOn: ['db/postgres'],
  register(container, hooks) {
    const dataTypes = dataOperationTypes(container);
    const legacy: Record<string, PrefixedHandler> = {};
    for (const [type, handler] of Object.entries(OPERATIONS)) {
      dataTypes.add(type);
      legacy[type] = async (ctx, args) => handler(await dmlContext(ctx, args), args);
    }
    // `/v2/query` serves them too, as the reference's schema API does.
    registerMetadataOperations(hooks, PLUGIN_ID, { legacy, endpoints: { legacy: ['query', 'schema'] } });
  },
});
