/** The engine's version, read once from package.json so `version`, /v1/version and config agree. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './paths.js';

const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };

export const ENGINE_VERSION: string = `v${pkg.version}`;
