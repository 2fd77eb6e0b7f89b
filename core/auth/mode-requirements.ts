/**
 * The start-up rules the reference engine applies to token and webhook auth: each needs an admin
 * secret, and the two can't be combined. Shared so both plugins refuse with the same words.
 */
import { BootError } from '../errors.js';
import type { ServerConfig } from '../config/types.js';

export function checkAuthModeRequirements(config: ServerConfig, mode: 'jwt' | 'webhook'): void {
  const option = mode === 'jwt' ? '--jwt-secret (SVC_GRAPHQL_JWT_SECRET)' : '--auth-hook (SVC_GRAPHQL_AUTH_HOOK)';
  if (config.adminSecret === undefined) {
    throw new BootError('E_OPTION_INVALID', `${option} requires --admin-secret (SVC_GRAPHQL_ADMIN_SECRET) to be set`);
  }
  if (config.jwtSecret !== undefined && config.authHook !== undefined) {
    throw new BootError('E_OPTION_INVALID', 'Both webhook and JWT mode cannot be enabled at the same time (--auth-hook and --jwt-secret)');
  }
}
