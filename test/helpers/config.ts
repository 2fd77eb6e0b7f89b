/** A ServerConfig with every default, for tests; overrides win. */
import { parseServerConfig } from '../../core/config/parse.js';
import type { ServerConfig } from '../../core/config/types.js';

export function testConfig(overrides: Partial<ServerConfig> = {}): ServerConfig {
  // SVC_TEST_EXPERIMENTAL_FEATURES runs a suite with experimental features on, to show they change no answer.
  const features = process.env['SVC_TEST_EXPERIMENTAL_FEATURES'];
  const { config } = parseServerConfig({ flags: {}, env: features ? { SVC_GRAPHQL_EXPERIMENTAL_FEATURES: features } : {} });
  return { ...config, serverPort: 0, serverHost: '127.0.0.1', schemaSyncPollInterval: 0, ...overrides };
}
