/**
 * Finds the token where the configuration says it travels: `Authorization: Bearer <token>`, a
 * named cookie, or a custom header. "No token" is not an error here: the caller decides between
 * the unauthorized role and the reference engine's missing-header error.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { EngineError } from '../../../core/sdk/index.js';
import type { TokenLocation } from './config.js';

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function cookieValue(cookieHeader: string, name: string): string | undefined {
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function findToken(headers: IncomingHttpHeaders, location: TokenLocation): string | undefined {
  switch (location.type) {
    case 'Authorization': {
      const value = header(headers, 'authorization');
      if (value === undefined) return undefined;
      // Exactly two words, the first being "Bearer" (case-sensitive), as the reference engine reads it.
      const words = value.split(/\s+/).filter((w) => w !== '');
      if (words.length !== 2 || words[0] !== 'Bearer') {
        throw new EngineError('invalid-headers', 'Malformed Authorization header');
      }
      return words[1];
    }
    case 'Cookie': {
      const value = header(headers, 'cookie');
      return value === undefined ? undefined : cookieValue(value, location.name);
    }
    case 'CustomHeader':
      return header(headers, location.name);
  }
}

export function missingTokenError(): EngineError {
  return new EngineError('invalid-headers', "Missing 'Authorization' or 'Cookie' header in JWT authentication mode");
}
