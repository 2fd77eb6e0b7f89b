/** The engine's version, read once from package.json so `version`, /v1/version and config agree. */
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

export const ENGINE_VERSION: string = `v${pkg.version}`;
