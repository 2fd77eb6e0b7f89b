/**
 * Plugins may use the engine only through the SDK (core/sdk/index.ts): that module is the promise
 * to plugin authors, so a plugin reaching into another core module would depend on something
 * that may change under it, and would show third parties a way the docs do not.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as sdk from '../../../core/sdk/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const CORE = join(ROOT, 'core');
const SDK_ENTRY = join(CORE, 'sdk', 'index');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mts|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every module specifier of a file: static imports and re-exports, side-effect imports, dynamic imports. */
export function moduleSpecifiers(text: string): string[] {
  const found: string[] = [];
  const patterns = [/\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g];
  for (const pattern of patterns) for (const m of text.matchAll(pattern)) found.push(m[1]!);
  return found;
}

/** Why a specifier in `file` breaks the rule, or null when it is allowed. */
export function forbiddenImport(file: string, specifier: string): string | null {
  if (specifier === 'svc-graphql-engine' || (specifier.startsWith('svc-graphql-engine/') && specifier !== 'svc-graphql-engine/sdk')) {
    return 'imports the engine package by a path other than svc-graphql-engine/sdk';
  }
  if (!specifier.startsWith('.')) return null;
  const target = resolve(dirname(file), specifier).replace(/\.(ts|js)$/, '');
  if (target !== CORE && !target.startsWith(CORE + '/')) return null;
  return target === SDK_ENTRY ? null : `imports ${relative(ROOT, target)} instead of core/sdk/index.js`;
}

describe('plugins import the engine only through the SDK', () => {
  it('no plugin file reaches into core/ except through core/sdk/index.js', () => {
    const offences: string[] = [];
    for (const file of sourceFiles(join(ROOT, 'plugins'))) {
      for (const specifier of moduleSpecifiers(readFileSync(file, 'utf8'))) {
        const why = forbiddenImport(file, specifier);
        if (why) offences.push(`${relative(ROOT, file)}: '${specifier}' ${why}`);
      }
    }
    expect(offences).to.deep.equal([]);
  });

  it('catches each way of reaching into core/', () => {
    const file = join(ROOT, 'plugins', 'metadata', 'tables', 'index.ts');
    const text = [
      "import { EngineError } from '../../../core/errors.js';",
      "import type { Session } from '../../../core/auth/session.js';",
      "export { x } from '../../../core/metadata/args.js';",
      "import '../../../core/hooks.js';",
      "const m = await import('../../../core/plugin.js');",
      "import { definePlugin } from 'svc-graphql-engine/core/plugin.js';",
      "import { definePlugin } from '../../../core/sdk/index.js';",
      "import { helper } from './helper.js';",
      "import { Pool } from 'pg';",
    ].join('\n');
    const flagged = moduleSpecifiers(text).filter((s) => forbiddenImport(file, s) !== null);
    expect(flagged).to.deep.equal([
      '../../../core/errors.js',
      '../../../core/auth/session.js',
      '../../../core/metadata/args.js',
      'svc-graphql-engine/core/plugin.js',
      '../../../core/hooks.js',
      '../../../core/plugin.js',
    ]);
  });

  it('the SDK exports the plugin contract at runtime', () => {
    expect(sdk.definePlugin).to.be.a('function');
    expect(sdk.registerMetadataOperations).to.be.a('function');
    expect(sdk.Stage.DEFAULT).to.equal(0);
    expect(new sdk.EngineError('parse-failed', 'x')).to.be.instanceOf(Error);
    expect(sdk.OutgoingHttp).to.be.a('function');
  });
});
