/**
 * The Dockerfile and compose file, checked by parsing them (no Docker engine runs here and
 * hadolint is not packaged for this Debian): a multi-stage build, a non-root runtime with pg_dump,
 * a health check on /healthz, sources that exist, and a compose file whose engine waits for its
 * PostgreSQL and sets only options the engine knows.
 */
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { OPTIONS } from '../../../config/options.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

interface Instruction {
  op: string;
  args: string;
  stage: number;
}

/** Instructions with continuation lines joined; comments dropped. */
function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let stage = -1;
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += line.slice(0, -1) + ' ';
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    const m = /^([A-Z]+)\s+(.*)$/.exec(full);
    if (!m) throw new Error(`unparsable Dockerfile line: ${full}`);
    if (m[1] === 'FROM') stage++;
    out.push({ op: m[1]!, args: m[2]!, stage });
  }
  return out;
}

describe('container image and compose file', () => {
  const dockerfile = parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'));
  const last = Math.max(...dockerfile.map((i) => i.stage));
  const final = dockerfile.filter((i) => i.stage === last);

  it('is a multi-stage build whose runtime stage copies the compiled engine from the build stage', () => {
    const froms = dockerfile.filter((i) => i.op === 'FROM');
    expect(froms.length).to.be.at.least(2);
    expect(froms[0]!.args).to.match(/ AS build$/);
    expect(froms.every((f) => /^node:20[-.\w]*( AS \w+)?$/.test(f.args)), 'node 20 base images').to.equal(true);
    expect(final.some((i) => i.op === 'COPY' && i.args === '--from=build /app/dist ./dist')).to.equal(true);
    expect(dockerfile.some((i) => i.stage === 0 && i.op === 'RUN' && i.args.includes('npm prune --omit=dev'))).to.equal(true);
  });

  it('copies only files that exist', () => {
    for (const i of dockerfile.filter((x) => x.op === 'COPY' && !x.args.startsWith('--from'))) {
      const parts = i.args.split(/\s+/);
      for (const src of parts.slice(0, -1)) expect(existsSync(join(root, src)), `COPY ${src}`).to.equal(true);
    }
  });

  it('runs as a non-root user, with pg_dump, a health check on /healthz and the engine as entry point', () => {
    const user = final.filter((i) => i.op === 'USER').at(-1);
    expect(user?.args).to.equal('node');
    expect(final.some((i) => i.op === 'RUN' && /postgresql-client/.test(i.args)), 'pg_dump installed').to.equal(true);
    const health = final.find((i) => i.op === 'HEALTHCHECK');
    expect(health?.args).to.include('/healthz');
    expect(JSON.parse(final.find((i) => i.op === 'ENTRYPOINT')!.args)).to.deep.equal(['node', 'bin/svc-graphql-engine.js']);
    expect(JSON.parse(final.find((i) => i.op === 'CMD')!.args)).to.deep.equal(['serve']);
    expect(final.some((i) => i.op === 'EXPOSE' && i.args === '8080')).to.equal(true);
    const env = final.filter((i) => i.op === 'ENV').map((i) => i.args).join(' ');
    for (const name of env.match(/SVC_GRAPHQL_[A-Z_]+/g) ?? []) expect(OPTIONS.some((o) => o.env === name), name).to.equal(true);
  });

  it('the compose file runs the engine against its PostgreSQL once that is healthy', () => {
    const compose = parse(readFileSync(join(root, 'compose.yaml'), 'utf8'));
    const pg = compose.services.postgres;
    const engine = compose.services['graphql-engine'];
    expect(pg.image).to.match(/^postgres:\d+/);
    expect(pg.healthcheck.test.join(' ')).to.include('pg_isready');
    expect(engine.build).to.equal('.');
    expect(engine.depends_on.postgres.condition).to.equal('service_healthy');
    expect(engine.environment.SVC_GRAPHQL_DATABASE_URL).to.match(/^postgres:\/\/postgres:.*@postgres:5432\/postgres$/);
    expect(engine.ports).to.deep.equal(['8080:8080']);
    for (const name of Object.keys(engine.environment)) expect(OPTIONS.some((o) => o.env === name), name).to.equal(true);
    expect(compose.volumes).to.have.property('db_data');
  });

  it('the docker build context leaves out what the image does not need', () => {
    const ignored = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n');
    for (const p of ['node_modules', 'dist', 'test', '.git']) expect(ignored).to.include(p);
  });
});
