/** A ServerConfig with every default, for tests; overrides win. */
import { parseServerConfig } from '../../core/config/parse.js';
import type { ServerConfig } from '../../core/config/types.js';

export function testConfig(overrides: Partial<ServerConfig> = {}): ServerConfig {
  const { config } = parseServerConfig({ flags: {}, env: {} });
  return { ...config, serverPort: 0, serverHost: '127.0.0.1', schemaSyncPollInterval: 0, ...overrides };
}
