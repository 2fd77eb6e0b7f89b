/**
 * CPU per authentication of one repeated JWT (RS256, HS256) through the `onRequestAuth` hook, in
 * process, for comparing checkouts: the session cache answers a token seen before without
 * verifying it again. Usage: tsx test/bench/jwt-auth-cost.ts [checkout root] [iterations]
 */
import { generateKeyPairSync } from 'node:crypto';
import { resolve } from 'node:path';
import { SignJWT } from 'jose';

const root = resolve(process.argv[2] ?? resolve(import.meta.dirname, '../..'));
const iterations = Number(process.argv[3] ?? 20_000);
const { createKernel } = (await import(`${root}/core/kernel/kernel.ts`)) as typeof import('../../core/kernel/kernel.js');
const auth = (await import(`${root}/core/http/auth.ts`)) as Partial<typeof import('../../core/http/auth.js')>;
const authenticate = auth.authenticate!;
// Checkouts before the synchronous path have only the hook's async one.
const authenticateNow = auth.authenticateNow ?? authenticate;
const { testConfig } = (await import(`${root}/test/helpers/config.ts`)) as typeof import('../helpers/config.js');
const adminSecret = ((await import(`${root}/plugins/auth/admin-secret/index.ts`)) as typeof import('../../plugins/auth/admin-secret/index.js')).default;
const jwt = ((await import(`${root}/plugins/auth/jwt/index.ts`)) as typeof import('../../plugins/auth/jwt/index.js')).default;

const NS = 'https://svc-graphql-engine.io/jwt/claims';
const claims = { [NS]: { 'x-svc-allowed-roles': ['user'], 'x-svc-default-role': 'user', 'x-svc-user-id': '42' }, exp: Math.floor(Date.now() / 1000) + 3600 };
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const hsKey = 'a-shared-secret-of-at-least-32-chars!';
const setups = [
  { name: 'RS256', secret: { type: 'RS256', key: rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString() }, token: await new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(rsa.privateKey) },
  { name: 'HS256', secret: { type: 'HS256', key: hsKey }, token: await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(hsKey)) },
];
for (const s of setups) {
  const kernel = await createKernel({ plugins: [adminSecret, jwt], config: testConfig({ adminSecret: 'secret', jwtSecret: s.secret }) });
  const headers = { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' };
  for (const [how, run] of [['hook', authenticate], ['now', authenticateNow]] as const) {
    for (let i = 0; i < 500; i++) await run(kernel.hooks, { headers, ip: '127.0.0.1', responseHeaders: [] });
    const before = process.cpuUsage();
    for (let i = 0; i < iterations; i++) await run(kernel.hooks, { headers, ip: '127.0.0.1', responseHeaders: [] });
    const used = process.cpuUsage(before);
    console.log(`${s.name} ${how}: ${((used.user + used.system) / iterations).toFixed(2)} µs CPU per authentication (${root})`);
  }
}
