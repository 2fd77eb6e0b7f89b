/**
 * How the engine serves the console: on /console (and / redirecting there) only when enabled,
 * with the single-page fallback, cache and security headers, nothing outside the assets
 * directory, and a refusal to start with an assets directory that holds no console.
 */
import { expect } from 'chai';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Engine } from '../../../core/engine.js';
import type { ServerConfig } from '../../../core/config/types.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { startTestEngine } from '../../helpers/engine.js';
import { parseServerConfig } from '../../../core/config/parse.js';
import consolePlugin from '../../../plugins/api/console/index.js';

const INDEX = '<!doctype html><title>console</title><div id="root"></div>';

const get = (engine: Engine, p: string) => fetch(engine.url + p, { redirect: 'manual' });

describe('console serving (integration)', function () {
  let db: TestDatabase;
  let assets: string;
  let outside: string;
  const engines: Engine[] = [];
  const start = async (config: Partial<ServerConfig>) => {
    const e = await startTestEngine({ databaseUrl: db.url, ...config });
    engines.push(e);
    return e;
  };

  before(async () => {
    db = await createTestDatabase('console_serving');
    assets = mkdtempSync(path.join(tmpdir(), 'svc-console-assets-'));
    mkdirSync(path.join(assets, 'assets'));
    writeFileSync(path.join(assets, 'index.html'), INDEX);
    writeFileSync(path.join(assets, 'assets', 'app-1234.js'), 'console.log("app")');
    writeFileSync(path.join(assets, 'assets', 'font.ttf'), Buffer.from([0, 1, 0, 0]));
    outside = path.join(path.dirname(assets), `${path.basename(assets)}-secret.txt`);
    writeFileSync(outside, 'not for browsers');
  });
  after(async () => {
    for (const e of engines) await e.close();
    await db?.drop();
    rmSync(assets, { recursive: true, force: true });
    rmSync(outside, { force: true });
  });

  describe('enabled, with --console-assets-dir', () => {
    let engine: Engine;
    before(async () => {
      engine = await start({ enableConsole: true, consoleAssetsDir: assets });
    });

    it('redirects / and /console to /console/', async () => {
      for (const p of ['/', '/console']) {
        const res = await get(engine, p);
        expect(res.status, p).to.equal(302);
        expect(res.headers.get('location'), p).to.equal('/console/');
      }
    });

    it('serves index.html with a same-origin-only content security policy', async () => {
      const res = await get(engine, '/console/');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(await res.text()).to.equal(INDEX);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).to.include("default-src 'self'").and.include("connect-src 'self'").and.include("frame-ancestors 'none'");
      expect(res.headers.get('cache-control')).to.equal('no-cache');
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    });

    it('serves hashed assets with their type, cached for good', async () => {
      const js = await get(engine, '/console/assets/app-1234.js');
      expect(js.status).to.equal(200);
      expect(js.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
      expect(js.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
      expect(await js.text()).to.equal('console.log("app")');
      const font = await get(engine, '/console/assets/font.ttf');
      expect(font.headers.get('content-type')).to.equal('font/ttf');
      expect(Buffer.from(await font.arrayBuffer())).to.deep.equal(Buffer.from([0, 1, 0, 0]));
    });

    it('answers a page route of the app with index.html', async () => {
      const res = await get(engine, '/console/data/default/public/authors');
      expect(res.status).to.equal(200);
      expect(await res.text()).to.equal(INDEX);
    });

    it('never serves a file outside the assets directory', async () => {
      const name = path.basename(outside);
      for (const p of [`/console/../${name}`, `/console/%2e%2e/${name}`, `/console/assets/%2e%2e/%2e%2e/${name}`, `/console/..%5c${name}`, `/console/%00index.html`]) {
        const res = await get(engine, p);
        const text = await res.text();
        expect(text, p).to.not.include('not for browsers');
      }
    });

    it('leaves the APIs alone', async () => {
      const res = await get(engine, '/v1/version');
      expect(res.status).to.equal(200);
    });
  });

  describe('disabled', () => {
    it('answers 404 on /, /console and its assets with --enable-console=false', async () => {
      const engine = await start({ enableConsole: false, consoleAssetsDir: assets });
      for (const p of ['/', '/console', '/console/', '/console/assets/app-1234.js']) {
        const res = await get(engine, p);
        expect(res.status, p).to.equal(404);
        expect(await res.json(), p).to.include({ code: 'not-found' });
      }
    });

    it('is off by default and on with --dev-mode unless set', async () => {
      const { config: plain } = parseServerConfig({ flags: {}, env: {} });
      expect(consolePlugin.optionsFromConfig!(plain)).to.deep.equal({ enabled: false });
      const { config: dev } = parseServerConfig({ flags: { 'dev-mode': true }, env: {} });
      expect(consolePlugin.optionsFromConfig!(dev)).to.deep.equal({ enabled: true });
      const { config: devOff } = parseServerConfig({ flags: { 'dev-mode': true, 'enable-console': 'false' }, env: {} });
      expect(consolePlugin.optionsFromConfig!(devOff)).to.deep.equal({ enabled: false });
      const { config: env } = parseServerConfig({ flags: {}, env: { SVC_GRAPHQL_ENABLE_CONSOLE: 'true', SVC_GRAPHQL_CONSOLE_ASSETS_DIR: '/srv/console-assets' } });
      expect(consolePlugin.optionsFromConfig!(env)).to.deep.equal({ enabled: true, assetsDir: '/srv/console-assets' });
    });
  });

  it('refuses to start when --console-assets-dir holds no console', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'svc-console-empty-'));
    try {
      let error: unknown;
      try {
        await start({ enableConsole: true, consoleAssetsDir: empty });
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(Error);
      expect((error as { code?: string }).code).to.equal('E_OPTION_INVALID');
      expect((error as Error).message).to.include('--console-assets-dir').and.include('index.html');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
