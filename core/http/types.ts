/** State carried on every koa request through the engine's HTTP app. */
import type { Session } from '../auth/session.js';

export interface AppRouterState {
  requestId: string;
  /** Set once the request has been authenticated. */
  session?: Session;
  /** The GraphQL operation type a route answered, for the request metrics. */
  operationType?: string;
}
