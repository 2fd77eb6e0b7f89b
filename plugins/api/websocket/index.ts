/**
 * GraphQL over websockets on `/v1/graphql` and `/v1alpha1/graphql` (same port as HTTP):
 * `graphql-transport-ws` and the legacy `graphql-ws` protocols, queries and mutations through
 * the HTTP executor, and live queries / streaming subscriptions through the subscription
 * manager (core/subscriptions), registered here as `subscriptionManager`.
 *
 * Hooks: `onHttpRoutes` (takes the server's upgrades), `onEvent` (`metadata.changed` closes the
 * sockets with 1012 unless --close-websockets-on-metadata-change=false; `shutdown.started`
 * closes them after in-flight work; `server.started` removes change-tracking triggers when
 * tracking is off), `onMetadataApply` (tables leaving the metadata lose their trigger). Safe to disable: clients then get no websocket endpoint
 * (upgrades answer 404) and HTTP is unaffected. Part of the `graphql` API of --enabled-apis.
 */
import { asFunction } from 'awilix';
import {
  definePlugin,
  type GraphQLExecutor,
  type Logger,
  type MetricsRegistry,
  type SchemaCacheRef,
  type ServerConfig,
  SubscriptionManager,
} from '../../../core/sdk/index.js';
import { CLOSE_METADATA_CHANGED, GraphQLWsServer } from './server.js';
import { dropEverywhere, dropForRemovedTables } from './change-tracking.js';

export default definePlugin({
  name: 'websocket',
  kind: 'api',
  api: 'graphql',
  provides: ['websockets', 'live-queries', 'streaming-subscriptions'],
  dependsOn: ['api/graphql'],
  register(container, hooks) {
    container.register({
      subscriptionManager: asFunction(
        ({ graphqlExecutor, config, logger }: { graphqlExecutor: GraphQLExecutor; config: ServerConfig; logger: Logger }) =>
          new SubscriptionManager(graphqlExecutor, config, logger),
      )
        .singleton()
        .disposer((m) => m.close()),
    });
    const config = container.resolve<ServerConfig>('config');
    const logger = container.resolve<Logger>('logger');
    const server = new GraphQLWsServer(config, logger, () => ({
      hooks,
      config,
      logger,
      executor: container.resolve<GraphQLExecutor>('graphqlExecutor'),
      subscriptions: container.resolve<SubscriptionManager>('subscriptionManager'),
    }));
    container.register({ websocketServer: asFunction(() => server).singleton() });

    // Read at each scrape of /v1/metrics (nothing is counted per message).
    const metrics = container.resolve<MetricsRegistry>('metrics');
    metrics.onCollect(() => {
      metrics.engine.websocketConnections.set({}, server.connectionCount);
      const stats = container.resolve<SubscriptionManager>('subscriptionManager').stats();
      metrics.engine.activeSubscriptions.set({ subscription_kind: 'live' }, stats.subscribers - stats.streamingSubscribers);
      metrics.engine.activeSubscriptions.set({ subscription_kind: 'streaming' }, stats.streamingSubscribers);
    });

    hooks.onHttpRoutes.tap('api/websocket', ({ raw }) => {
      raw.upgrade((req, socket, head) => server.handleUpgrade(req, socket, head));
    });
    hooks.onMetadataApply.tapPromise('api/websocket', (apply) => dropForRemovedTables(apply, logger));
    hooks.onEvent.tapPromise('api/websocket', async (event) => {
      if (event.type === 'server.started' && !config.liveQueriesChangeTracking) {
        await dropEverywhere(container.resolve<SchemaCacheRef>('schemaCacheRef').current, logger);
      } else if (event.type === 'metadata.changed' && config.closeWebsocketsOnMetadataChange) {
        server.closeAll(CLOSE_METADATA_CHANGED.code, CLOSE_METADATA_CHANGED.reason);
      } else if (event.type === 'shutdown.started') {
        await server.shutdown();
        await container.resolve<SubscriptionManager>('subscriptionManager').close();
      }
    });
  },
});
