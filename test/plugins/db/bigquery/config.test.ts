/** The `wh_` source configuration: the reference's keys and forms, refusals at the key's path, environment variables read late. */
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { parseBigQueryConfiguration, resolveBigQueryConfiguration } from '../../../../plugins/db/bigquery/config.js';

const KEY = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const SA = { type: 'service_account', client_email: 'e@p.iam.gserviceaccount.com', private_key: KEY, project_id: 'p' };
const BASE = { service_account: SA, project_id: 'p', datasets: ['ds'] };

function refusal(configuration: unknown): { code: string; path: string | undefined; message: string } {
  try {
    parseBigQueryConfiguration(configuration, '$.args.configuration');
  } catch (e) {
    const err = e as { code: string; path?: string; message: string };
    return { code: err.code, path: err.path, message: err.message };
  }
  throw new Error('accepted');
}

describe('db/bigquery: configuration', () => {
  it('takes the service account as an object, a JSON string or {from_env}', () => {
    expect(parseBigQueryConfiguration(BASE, '$').service_account).to.deep.equal(SA);
    expect(parseBigQueryConfiguration({ ...BASE, service_account: JSON.stringify(SA) }, '$').service_account).to.deep.equal(SA);
    expect(parseBigQueryConfiguration({ ...BASE, service_account: { from_env: 'SA' } }, '$').service_account).to.deep.equal({ from_env: 'SA' });
  });

  it('takes project_id and global_select_limit as strings, numbers or {from_env}, datasets as a list or {from_env}', () => {
    const c = parseBigQueryConfiguration({ ...BASE, project_id: { from_env: 'P' }, datasets: { from_env: 'D' }, global_select_limit: 50, retry_limit: '2', retry_base_delay: { from_env: 'R' } }, '$');
    expect(c).to.deep.include({ project_id: { from_env: 'P' }, datasets: { from_env: 'D' }, global_select_limit: '50', retry_limit: '2', retry_base_delay: { from_env: 'R' } });
    expect(parseBigQueryConfiguration({ ...BASE, project_id: 12345 }, '$').project_id).to.equal('12345');
  });

  it('refuses unknown keys, missing keys and malformed values with parse-failed at their path', () => {
    expect(refusal({ ...BASE, location: 'EU' })).to.include({ code: 'parse-failed', path: '$.args.configuration.location' });
    expect(refusal({ ...BASE, connection_info: 5 })).to.include({ code: 'parse-failed', path: '$.args.configuration.connection_info' });
    for (const key of ['service_account', 'project_id', 'datasets']) {
      const { [key]: _gone, ...rest } = BASE as Record<string, unknown>;
      expect(refusal(rest)).to.deep.include({ code: 'parse-failed', path: '$.args.configuration', message: `key "${key}" not found` });
    }
    expect(refusal({ ...BASE, service_account: '{not json' })).to.deep.include({ path: '$.args.configuration.service_account', message: 'error parsing configuration json' });
    expect(refusal({ ...BASE, service_account: { ...SA, private_key: 'nope' } })).to.deep.include({ path: '$.args.configuration.service_account.private_key', message: 'unable to parse private key' });
    expect(refusal({ ...BASE, service_account: { ...SA, client_email: undefined } })).to.deep.include({ message: 'key "client_email" not found' });
    expect(refusal({ ...BASE, service_account: { from_env: 'A', x: 1 } })).to.include({ path: '$.args.configuration.service_account.x' });
    expect(refusal({ ...BASE, datasets: [] })).to.include({ path: '$.args.configuration.datasets' });
    expect(refusal({ ...BASE, datasets: ['ok', 3] })).to.include({ path: '$.args.configuration.datasets[1]' });
    expect(refusal({ ...BASE, datasets: 'ds' })).to.deep.include({ message: 'one of array or object must be provided' });
    expect(refusal({ ...BASE, project_id: true })).to.deep.include({ message: 'one of string or number or object must be provided' });
    expect(refusal({ ...BASE, global_select_limit: -1 })).to.deep.include({ path: '$.args.configuration.global_select_limit', message: 'Need the integer for the global select limit to be non-negative' });
    expect(refusal({ ...BASE, retry_limit: 'many' })).to.deep.include({ message: 'Need a non-negative integer for retry limit' });
    expect(refusal(5)).to.include({ code: 'parse-failed', path: '$.args.configuration' });
  });

  it('reads environment variables when resolved, with the reference defaults', () => {
    const env = { SA: JSON.stringify(SA), P: 'proj', D: 'a, b,,c', L: '25' };
    const r = resolveBigQueryConfiguration({ service_account: { from_env: 'SA' }, project_id: { from_env: 'P' }, datasets: { from_env: 'D' }, global_select_limit: { from_env: 'L' } }, env);
    expect(r).to.deep.include({ projectId: 'proj', datasets: ['a', 'b', 'c'], globalSelectLimit: 25, retryLimit: 5, retryBaseDelayMs: 500 });
    expect(r.serviceAccount.client_email).to.equal(SA.client_email);
    expect(resolveBigQueryConfiguration({ ...BASE, retry_base_delay: 2000, retry_limit: 0 }, {})).to.deep.include({ globalSelectLimit: 1000, retryLimit: 0, retryBaseDelayMs: 2 });
  });

  it('fails resolution (not parsing) with invalid-configuration when a variable is missing or holds no key', () => {
    const fail = (c: unknown, env: NodeJS.ProcessEnv): { code: string; path?: string } => {
      try {
        resolveBigQueryConfiguration(c, env);
      } catch (e) {
        return e as { code: string; path?: string };
      }
      throw new Error('resolved');
    };
    expect(fail({ ...BASE, project_id: { from_env: 'NOPE' } }, {})).to.include({ code: 'invalid-configuration', path: '$.configuration.project_id' });
    expect(fail({ ...BASE, service_account: { from_env: 'SA' } }, { SA: 'not json' })).to.include({ code: 'invalid-configuration', path: '$.configuration.service_account' });
    expect(fail({ ...BASE, service_account: { from_env: 'SA' } }, { SA: '{}' })).to.include({ code: 'invalid-configuration' });
    expect(fail({ ...BASE, global_select_limit: { from_env: 'L' } }, { L: 'x' })).to.include({ code: 'invalid-configuration', path: '$.configuration.global_select_limit' });
    expect(fail({ ...BASE, datasets: { from_env: 'D' } }, { D: ' , ' })).to.include({ code: 'invalid-configuration', path: '$.configuration.datasets' });
  });
});
