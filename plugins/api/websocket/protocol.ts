/**
 * The two GraphQL websocket protocols, as the reference engine speaks them:
 * `graphql-transport-ws` (chosen only when the client's one Sec-WebSocket-Protocol header is
 * exactly that) and the legacy Apollo `graphql-ws` (everything else). Both accept every client
 * message type of either protocol; what differs is the server's answers and close codes.
 */
import { type GraphQLRequest, parseGraphQLRequest, toEngineError } from '../../../core/sdk/index.js';

export const TRANSPORT_WS = 'graphql-transport-ws';
export const LEGACY_WS = 'graphql-ws';

export type Protocol = 'transport' | 'legacy';

export type ClientMessage =
  | { type: 'connection_init'; headers: Record<string, string> }
  | { type: 'start'; id: string; request: GraphQLRequest }
  | { type: 'stop'; id: string }
  | { type: 'connection_terminate' }
  | { type: 'ping'; payload: unknown }
  | { type: 'pong' };

/** The protocol for an upgrade request's `Sec-WebSocket-Protocol` header(s). */
export function protocolOf(header: string | string[] | undefined): Protocol {
  const values = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return values.length === 1 && values[0]!.trim() === TRANSPORT_WS ? 'transport' : 'legacy';
}

export class ClientMessageError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function idOf(msg: Record<string, unknown>): string {
  const id = msg['id'];
  if (typeof id !== 'string') throw new ClientMessageError(id === undefined ? 'Error in $: key "id" not found' : 'Error in $.id: expected String');
  return id;
}

/** Reads one client message; throws ClientMessageError with the reference's wording. */
export function parseClientMessage(text: string): ClientMessage {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch (e) {
    throw new ClientMessageError(`Error in $: ${(e as Error).message}`);
  }
  if (!isObject(msg)) throw new ClientMessageError('Error in $: expected Object');
  const type = msg['type'];
  if (typeof type !== 'string') throw new ClientMessageError('Error in $: key "type" not found');
  switch (type) {
    case 'connection_init': {
      const payload = msg['payload'];
      const headers: Record<string, string> = {};
      const given = isObject(payload) ? payload['headers'] : undefined;
      if (isObject(given)) {
        for (const [k, v] of Object.entries(given)) if (typeof v === 'string') headers[k.toLowerCase()] = v;
      }
      return { type, headers };
    }
    case 'start':
    case 'subscribe': {
      const id = idOf(msg);
      try {
        return { type: 'start', id, request: parseGraphQLRequest(msg['payload'], '$.payload') };
      } catch (e) {
        const err = toEngineError(e);
        throw new ClientMessageError(`Error in ${err.path}: ${err.message}`);
      }
    }
    case 'stop':
    case 'complete':
      return { type: 'stop', id: idOf(msg) };
    case 'connection_terminate':
      return { type };
    case 'ping':
      return { type, payload: msg['payload'] };
    case 'pong':
      return { type };
    default:
      throw new ClientMessageError(`unexpected type for ClientMessage: ${type}`);
  }
}

/** Close reasons carry the message as JSON, as the reference engine sends them. */
export const jsonReason = (message: string): string => JSON.stringify({ server_error_msg: message });

/** Server messages, as JSON text; `payload` arguments are JSON text already. */
export const serverMessage = {
  ack: (): string => '{"type":"connection_ack"}',
  keepAlive: (p: Protocol): string => (p === 'legacy' ? '{"type":"ka"}' : '{"type":"ping","payload":{"message":"keepalive"}}'),
  pong: (payload: unknown): string => JSON.stringify(payload === undefined ? { type: 'pong' } : { type: 'pong', payload }),
  connectionError: (message: string): string => JSON.stringify({ type: 'connection_error', payload: message }),
  data: (p: Protocol, id: string, payload: string): string => `{"type":"${p === 'legacy' ? 'data' : 'next'}","id":${JSON.stringify(id)},"payload":${payload}}`,
  error: (id: string, payload: string): string => `{"type":"error","id":${JSON.stringify(id)},"payload":${payload}}`,
  complete: (id: string): string => `{"type":"complete","id":${JSON.stringify(id)}}`,
};
