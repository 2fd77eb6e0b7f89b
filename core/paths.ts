/**
 * Where the running engine's files are. From source, the code root is the repository; compiled,
 * it is dist/ (which holds core/, plugins/ and config/ as JavaScript). The package root, with
 * package.json and config/plugins.json, is the same directory or the one above dist/.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory holding core/ and plugins/ of the code that is running. */
export const CODE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The directory holding package.json. */
export const PACKAGE_ROOT = existsSync(join(CODE_ROOT, 'package.json')) ? CODE_ROOT : resolve(CODE_ROOT, '..');
