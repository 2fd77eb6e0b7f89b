/**
 * Names for server-side prepared statements: derived from the text only, so every connection
 * and every engine instance agree on the name of the same statement.
 */
import { createHash } from 'node:crypto';

export function statementName(text: string): string {
  return 'svc_' + createHash('sha1').update(text).digest('hex').slice(0, 16);
}
