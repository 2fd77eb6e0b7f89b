/**
 * The compiled engine's entry loads graphql-js in its production mode whatever NODE_ENV says
 * (bin/graphql-production.js): graphql-js's development `instanceOf` compares class names on
 * every failed type check, a tenth of a role schema build's CPU. Run in a child process with plain
 * Node (no tsx), as bin/svc-graphql-engine.js runs.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** After the entry's first step: graphql's `instanceOf` mode and NODE_ENV, as the child sees them. */
function loaded(nodeEnv: string | undefined): { production: boolean; nodeEnv: string | null } {
  const env = { ...process.env };
  delete env.NODE_ENV;
  if (nodeEnv !== undefined) env.NODE_ENV = nodeEnv;
  const script = `
    await import(${JSON.stringify(resolve(root, 'bin/graphql-production.js'))});
    const { createRequire } = await import('node:module');
    const require = createRequire(${JSON.stringify(resolve(root, 'package.json'))});
    const { instanceOf } = require('graphql/jsutils/instanceOf');
    const { GraphQLObjectType } = await import('graphql');
    // The development check throws on an object whose class name matches another realm's.
    const lookalike = { [Symbol.toStringTag]: 'GraphQLObjectType' };
    let production = true;
    try { instanceOf(lookalike, GraphQLObjectType); } catch { production = false; }
    process.stdout.write(JSON.stringify({ production, nodeEnv: process.env.NODE_ENV ?? null }));
  `;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, env, encoding: 'utf8' }));
}

describe('the compiled entry loads graphql-js in production mode', () => {
  it('whether NODE_ENV is unset, development or production, and leaves NODE_ENV as it was', () => {
    expect(loaded(undefined)).to.deep.equal({ production: true, nodeEnv: null });
    expect(loaded('development')).to.deep.equal({ production: true, nodeEnv: 'development' });
    expect(loaded('production')).to.deep.equal({ production: true, nodeEnv: 'production' });
  });
});
