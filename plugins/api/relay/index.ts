/**
 * The Relay API: `POST /v1beta1/relay` and websockets on the same path (when api/websocket is
 * loaded), a second GraphQL endpoint over the same sources and permissions with the Relay
 * schema (schema.ts): `Node` and `node(id:)`, `<t>_connection` and `<rel>_connection` with
 * cursors. It runs on its own executor (plan cache) and subscription manager; compilation is
 * the database kind's (`relay` capability). Part of the `graphql` API of --enabled-apis.
 */
import {
  asFunction,
  definePlugin,
  GraphQLExecutor,
  LimitGate,
  type SubscriptionManager,
  type KernelHooks,
  type Logger,
  type MetricsRegistry,
  type SchemaCacheRef,
  type ServerConfig,
} from '../../../core/sdk/index.js';
import { handleRelay, RELAY_PATH } from './http.js';
import { relaySchemaFor } from './schema.js';

/** What api/websocket's server offers other APIs (structural: plugins do not import each other). */
interface WebsocketEndpoints {
  addEndpoint(
    path: string,
    deps: () => { hooks: KernelHooks; config: ServerConfig; logger: Logger; executor: GraphQLExecutor; subscriptions: SubscriptionManager },
  ): void;
}

export default definePlugin({
  name: 'relay',
  kind: 'api',
  api: 'graphql',
  register(container, hooks) {
    container.register({
      relayExecutor: asFunction(
        ({ schemaCacheRef, config, metrics }: { schemaCacheRef: SchemaCacheRef; config: ServerConfig; metrics: MetricsRegistry }) =>
          new GraphQLExecutor(schemaCacheRef, config, { hooks, gate: LimitGate.forContainer(container, hooks) }, metrics, (cache, role) =>
            relaySchemaFor(cache, role, config),
          ),
      ).singleton(),
    });
    const config = container.resolve<ServerConfig>('config');
    const logger = container.resolve<Logger>('logger');
    const executor = (): GraphQLExecutor => container.resolve<GraphQLExecutor>('relayExecutor');
    hooks.onHttpRoutes.tap('api/relay', ({ raw }) => {
      raw.post(RELAY_PATH, (request) => handleRelay(request, { hooks, config, executor }));
      // Websockets when api/websocket serves them (it registers `websocketServer`).
      if (container.hasRegistration('websocketServer')) {
        // Subscriptions share /v1/graphql's manager (one change feed per source), planned by this executor.
        container.resolve<WebsocketEndpoints>('websocketServer').addEndpoint(RELAY_PATH, () => ({
          hooks,
          config,
          logger,
          executor: executor(),
          subscriptions: container.resolve<SubscriptionManager>('subscriptionManager'),
        }));
      }
    });
  },
});
