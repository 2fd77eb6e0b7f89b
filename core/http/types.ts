/** State carried on every koa request through the engine's HTTP app. */
import type { AwilixContainer } from 'awilix';
import type { Session } from '../auth/session.js';

export interface AppRouterState {
  requestId: string;
  /** The request's awilix scope (session, requestId registered in it). */
  scope: AwilixContainer;
  /** Set once the request has been authenticated. */
  session?: Session;
  /** The GraphQL operation type a route answered, for the request metrics. */
  operationType?: string;
}
