/**
 * The federation setting of a table. The spec names it `gateway_federation_config`; the reference
 * engine's name `apollo_federation_config` is accepted too, and metadata stores it under the
 * reference's export key (`apollo_federation_config`) so exported metadata moves across unchanged.
 */
import { type ArgsObject, EngineError, expectObject, type TableMetadata } from '../../../core/sdk/index.js';

export const FEDERATION_KEYS = ['gateway_federation_config', 'apollo_federation_config'] as const;

/** undefined: not given; null: disable; else the config. */
export function federationArg(args: ArgsObject, path: string): { enable: string } | null | undefined {
  const key = FEDERATION_KEYS.find((k) => k in args);
  if (!key) return undefined;
  const v = args[key];
  if (v === null || v === undefined) return null;
  const o = expectObject(v, `${path}.${key}`);
  if (o.enable !== 'v1') {
    throw new EngineError('parse-failed', 'enable takes the version of gateway federation. Supported value is v1 only.', {
      path: `${path}.${key}.enable`,
    });
  }
  return { enable: 'v1' };
}

export function setFederation(table: TableMetadata, config: { enable: string } | null): void {
  if (config) table.apollo_federation_config = config;
  else delete table.apollo_federation_config;
}
