/**
 * Finds the database-kind plugin serving a kind (`postgres`) or operation prefix (`pg`). Kinds are
 * registered in the container as `db.<name>` values by db plugins.
 */
import type { AwilixContainer } from 'awilix';
import { EngineError } from '../errors.js';
import type { DatabaseKind } from './contract.js';

export function databaseKinds(container: AwilixContainer): DatabaseKind[] {
  return Object.keys(container.registrations)
    .filter((k) => k.startsWith('db.'))
    .map((k) => container.resolve<DatabaseKind>(k));
}

export function findDatabaseKind(container: AwilixContainer, kindOrPrefix: string): DatabaseKind | undefined {
  return databaseKinds(container).find((k) => k.kind === kindOrPrefix || k.prefix === kindOrPrefix);
}

export function requireDatabaseKind(container: AwilixContainer, kindOrPrefix: string): DatabaseKind {
  const found = findDatabaseKind(container, kindOrPrefix);
  if (found) return found;
  const known = databaseKinds(container).map((k) => `${k.kind} (${k.prefix}_)`);
  throw new EngineError(
    'not-supported',
    `no database kind plugin serves "${kindOrPrefix}"; loaded kinds: ${known.length ? known.join(', ') : 'none'}`,
  );
}
