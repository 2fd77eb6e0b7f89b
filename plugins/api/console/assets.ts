/**
 * Finding and reading the console's built files. The console is a single-page app: a path under
 * /console that names no file gets index.html, so the browser's own routes survive a reload.
 * Paths are resolved inside the assets directory only; anything that would leave it is "no file".
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../../core/sdk/index.js';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

export const contentTypeOf = (file: string): string =>
  CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';

/**
 * Where `npm run build` puts the console: plugins/api/console/dist under the package root, the
 * same whether the engine runs from source or compiled to dist/.
 */
export const packagedAssetsDir = (): string => path.join(PACKAGE_ROOT, 'plugins', 'api', 'console', 'dist');

export interface AssetFile {
  body: Buffer;
  contentType: string;
  /** Hashed build outputs never change under their name; everything else is revalidated. */
  immutable: boolean;
}

/**
 * The file for a request path below /console (already without that prefix, e.g. `assets/x.js`),
 * or null when there is none. Dot segments, NUL bytes and backslashes are refused before the
 * file system is asked anything.
 */
export async function readAsset(root: string, relative: string): Promise<AssetFile | null> {
  if (relative.includes('\0') || relative.includes('\\')) return null;
  const segments = relative.split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '.' || s === '..')) return null;
  const full = path.resolve(root, ...segments);
  if (full !== root && !full.startsWith(root + path.sep)) return null;
  try {
    const info = await stat(full);
    if (!info.isFile()) return null;
    return { body: await readFile(full), contentType: contentTypeOf(full), immutable: segments[0] === 'assets' };
  } catch {
    return null;
  }
}
