/**
 * Who is asking. Auth-mode plugins turn an AuthRequest into a Session on the `onRequestAuth` hook;
 * everything after authentication reads only the Session.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ServerConfig } from '../config/types.js';

export const ADMIN_ROLE = 'admin';

export interface Session {
  role: string;
  /** Session variables with lower-cased `x-svc-*` names and string values; includes `x-svc-role`. */
  variables: Readonly<Record<string, string>>;
  /**
   * When the credentials stop being valid (a JWT's `exp`, a webhook's `Cache-Control`/`Expires`):
   * a websocket connection authenticated with them is closed then. Absent means no expiry.
   */
  expiresAt?: Date;
}

export interface AuthRequest {
  headers: IncomingHttpHeaders;
  ip: string;
  /** The parsed JSON body when the request had one (the webhook's POST mode forwards it). */
  body?: unknown;
  /** Headers an auth mode wants added to the response (a webhook's `Set-Cookie`). */
  responseHeaders: Array<[string, string]>;
}

export const isAdmin = (s: Session): boolean => s.role === ADMIN_ROLE;

/** Session variables from `x-svc-*` request headers, names lower-cased. */
export function sessionVariablesFromHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const vars: Record<string, string> = {};
  // for...in over the (own, plain) header object: no entry arrays per request.
  for (const name in headers) {
    // Most headers are not session variables: rule them out before lower-casing.
    if (name.length < 6 || (name.charCodeAt(0) | 0x20) !== 0x78) continue;
    const value = headers[name];
    const lower = name.toLowerCase();
    if (!lower.startsWith('x-svc-') || value === undefined) continue;
    if (lower === 'x-svc-admin-secret' || lower === 'x-svc-access-key') continue;
    vars[lower] = Array.isArray(value) ? value.join(',') : value;
  }
  return vars;
}

const SHARED_VARIABLES_JSON = new WeakMap<Session, string>();

/**
 * Marks a session as served to many requests (the admin session, a cached JWT's): its variables'
 * JSON text, which every database statement is given, is then built once.
 */
export function shareSession<S extends Session>(session: S): S {
  SHARED_VARIABLES_JSON.set(session, JSON.stringify(session.variables));
  return session;
}

/** The session variables as the JSON text statements receive. */
export function sessionVariablesJson(session: Session): string {
  return SHARED_VARIABLES_JSON.get(session) ?? JSON.stringify(session.variables);
}

/**
 * The session of an admin request with no other session variables (most admin traffic), shared
 * rather than built per request. Frozen, as every session's variables are: nothing after
 * authentication writes to a session.
 */
export const ADMIN_SESSION: Session = shareSession(Object.freeze({ role: ADMIN_ROLE, variables: Object.freeze({ 'x-svc-role': ADMIN_ROLE }) }));

export function makeSession(role: string, variables: Record<string, string>): Session {
  if (role === ADMIN_ROLE && onlyRole(variables)) return ADMIN_SESSION;
  return { role, variables: Object.freeze({ ...variables, 'x-svc-role': role }) };
}

/** No variables, or only `x-svc-role` (which makeSession sets to the role anyway). */
function onlyRole(variables: Record<string, string>): boolean {
  for (const name in variables) if (name !== 'x-svc-role') return false;
  return true;
}

/** Database and webhook detail goes to admins (with --admin-internal-errors) or everyone in dev mode. */
export function showInternalTo(session: Session | undefined, config: Pick<ServerConfig, 'devMode' | 'adminInternalErrors'>): boolean {
  if (config.devMode) return true;
  return config.adminInternalErrors && session !== undefined && isAdmin(session);
}
