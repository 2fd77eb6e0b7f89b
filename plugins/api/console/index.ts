/**
 * The console: serves the built web app (GraphiQL plus pages for the metadata API) on /console,
 * and redirects / there, when --enable-console is on (by default it is on only with --dev-mode).
 * Files come from --console-assets-dir or, without it, from the package's build output
 * (`npm run build`). The app talks to the engine's public endpoints only; it gets no privileges
 * of its own. Taps `onHttpRoutes` (only when enabled). Safe to disable: with the console off its
 * routes do not exist and answer 404 like any unknown path.
 */
import path from 'node:path';
import { existsSync } from 'node:fs';
import type { Context } from 'koa';
import { BootError, definePlugin, type Logger } from '../../../core/sdk/index.js';
import { packagedAssetsDir, readAsset } from './assets.js';

const PLUGIN_ID = 'api/console';
export const CONSOLE_PATH = '/console';

export interface ConsoleOptions {
  enabled: boolean;
  /** An operator's own copy of the assets; must hold index.html. */
  assetsDir?: string;
}

/**
 * The browser may only talk to this engine: no CDN, no third-party fetch. Monaco (the editor in
 * GraphiQL) sets inline styles and starts same-origin workers.
 */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "worker-src 'self' blob:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const NOT_BUILT_PAGE =
  '<!doctype html><meta charset="utf-8"><title>console not built</title>' +
  '<p>The console assets are not built. Run <code>npm run build</code> in the engine package, ' +
  'or start the engine with <code>--console-assets-dir</code> pointing at a built copy.</p>';

function resolveAssetsDir(options: ConsoleOptions): string {
  if (options.assetsDir === undefined) return packagedAssetsDir();
  const dir = path.resolve(options.assetsDir);
  if (!existsSync(path.join(dir, 'index.html'))) {
    throw new BootError(
      'E_OPTION_INVALID',
      `--console-assets-dir (SVC_GRAPHQL_CONSOLE_ASSETS_DIR): ${dir} has no index.html; point it at a built console (npm run build writes plugins/api/console/dist)`,
    );
  }
  return dir;
}

async function serve(ctx: Context, root: string, relative: string): Promise<void> {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) ctx.set(name, value);
  const file = (await readAsset(root, relative)) ?? (await readAsset(root, 'index.html'));
  if (!file) {
    ctx.status = 503;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = NOT_BUILT_PAGE;
    return;
  }
  ctx.type = file.contentType;
  ctx.set('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  ctx.body = file.body;
}

export default definePlugin<ConsoleOptions>({
  name: 'console',
  kind: 'api',
  provides: ['console'],
  optionsSchema: {
    type: 'object',
    properties: {
      enabled: { type: 'boolean' },
      assetsDir: { type: 'string', minLength: 1, nullable: true },
    },
    required: ['enabled'],
    additionalProperties: false,
  },
  optionsFromConfig: (config) => ({
    enabled: config.enableConsole ?? config.devMode,
    ...(config.consoleAssetsDir !== undefined ? { assetsDir: config.consoleAssetsDir } : {}),
  }),
  register(container, hooks, options) {
    if (!options.enabled) return;
    const root = resolveAssetsDir(options);
    const logger = container.resolve<Logger>('logger');
    hooks.onEvent.tap(PLUGIN_ID, (event) => {
      if (event.type !== 'server.started') return;
      if (existsSync(path.join(root, 'index.html'))) logger.info('startup', { kind: 'console', assets_dir: root });
      else logger.warn('startup', { kind: 'console', assets_dir: root, message: 'console assets not built: run npm run build' });
    });
    hooks.onHttpRoutes.tap(PLUGIN_ID, ({ router }) => {
      router.get('/', (ctx) => {
        ctx.status = 302;
        ctx.redirect(`${CONSOLE_PATH}/`);
      });
      // The router matches /console/ here too (trailing slashes are loose): only the bare path redirects.
      router.get(CONSOLE_PATH, async (ctx) => {
        if (ctx.path !== CONSOLE_PATH) return serve(ctx, root, '');
        ctx.status = 302;
        ctx.redirect(`${CONSOLE_PATH}/`);
      });
      router.get(`${CONSOLE_PATH}/{*rest}`, (ctx) => serve(ctx, root, String(ctx.params['rest'] ?? '')));
    });
  },
});
