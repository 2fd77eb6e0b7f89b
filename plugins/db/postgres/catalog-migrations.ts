/**
 * Migrations of the engine's own catalog (schema `svc_catalog` in the metadata database). Each
 * step runs once, in order, inside the start-up transaction that holds the catalog lock. Append
 * new steps; never edit a released one.
 */
export interface CatalogMigration {
  version: number;
  description: string;
  sql: string;
}

export const CATALOG_MIGRATIONS: readonly CatalogMigration[] = [
  {
    version: 1,
    description: 'metadata document with resource version',
    sql: `
      CREATE TABLE svc_catalog.svc_metadata (
        id integer PRIMARY KEY CHECK (id = 1),
        metadata json NOT NULL,
        resource_version integer NOT NULL DEFAULT 1
      );`,
  },
];

export const LATEST_CATALOG_VERSION = CATALOG_MIGRATIONS[CATALOG_MIGRATIONS.length - 1]!.version;
