/**
 * Root fields that plugins other than the database sources put at the top of query_root and
 * mutation_root (a remote schema's fields or its namespace), by plugin: tracking a table whose
 * root field would take one of these names is refused with the reference's
 * `remote-schema-conflicts`, instead of failing later as a new inconsistency.
 */
import { asValue, type AwilixContainer } from 'awilix';
import type { SchemaCache } from '../schema-cache/cache.js';

export type RootFieldReservation = (cache: SchemaCache) => Iterable<string>;

const RESERVATIONS_KEY = 'rootFieldReservations';

export function rootFieldReservations(container: AwilixContainer): Map<string, RootFieldReservation> {
  if (!container.hasRegistration(RESERVATIONS_KEY)) container.register(RESERVATIONS_KEY, asValue(new Map<string, RootFieldReservation>()));
  return container.resolve<Map<string, RootFieldReservation>>(RESERVATIONS_KEY);
}
