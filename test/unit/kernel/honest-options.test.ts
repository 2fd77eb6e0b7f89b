import { expect } from 'chai';
import { createKernel } from '../../../core/kernel/kernel.js';
import { BootError } from '../../../core/errors.js';
import { definePlugin } from '../../../core/plugin.js';
import { isOptionSet, ProvidedFeatures, unenforcedMetadata } from '../../../core/features/index.js';
import {
  EXPERIMENTAL_FEATURE_SUPPORT,
  EXPERIMENTAL_FEATURES,
  OPTIONS,
  optionLabel,
  type ServerOption,
} from '../../../config/options.js';
import { parseServerConfig } from '../../../core/config/parse.js';
import type { ServerConfig } from '../../../core/config/types.js';
import { configStatus } from '../../../plugins/api/config/index.js';
import { testConfig } from '../../helpers/config.js';

const providing = (...features: string[]) =>
  definePlugin({ name: `provides-${features.join('-') || 'nothing'}`, kind: 'example', provides: features, register() {} });

/** A value the option's type accepts that is not its default. */
function nonDefault(o: ServerOption): unknown {
  switch (o.type.kind) {
    case 'boolean':
    case 'flag':
      return o.default === true ? false : true;
    case 'string':
      return '/srv/console-assets';
    case 'integer':
    case 'seconds':
    case 'milliseconds':
      return (typeof o.default === 'number' ? o.default : 0) + 7;
    default:
      throw new Error(`no non-default value for ${o.flag} (${o.type.kind}) in this test`);
  }
}

async function bootError(config: Partial<ServerConfig>, features: string[] = []): Promise<BootError | undefined> {
  try {
    await createKernel({ plugins: [providing(...features)], config: testConfig(config) });
    return undefined;
  } catch (e) {
    expect(e).to.be.instanceOf(BootError);
    return e as BootError;
  }
}

describe('honest options (core/features)', () => {
  const gated = OPTIONS.filter((o) => o.feature !== undefined);

  it('gates every security-relevant option on a feature', () => {
    const byFlag = new Map(gated.map((o) => [o.flag, o.feature]));
    expect(byFlag.get('enable-allowlist')).to.equal('allowlist');
    expect(byFlag.get('enable-remote-schema-permissions')).to.equal('remote-schema-permissions');
    expect(byFlag.get('enable-console')).to.equal('console');
    expect(byFlag.get('console-assets-dir')).to.equal('console');
  });

  for (const o of OPTIONS.filter((x) => x.feature !== undefined)) {
    it(`refuses ${optionLabel(o)} set while no plugin provides '${o.feature}', and accepts it when one does`, async () => {
      const config = { [o.key]: nonDefault(o) } as Partial<ServerConfig>;
      const refused = await bootError(config);
      expect(refused, 'boot must fail').to.not.equal(undefined);
      expect(refused!.code).to.equal('E_OPTION_NOT_ENFORCED');
      expect(refused!.message).to.contain(optionLabel(o)).and.contain(`'${o.feature}'`);
      expect(await bootError(config, [o.feature!])).to.equal(undefined);
    });
  }

  it('accepts every gated option at its default (or unset) value without any provider', async () => {
    expect(await bootError({})).to.equal(undefined);
    expect(await bootError({ enableAllowlist: false, enableConsole: false, enableRemoteSchemaPermissions: false })).to.equal(
      undefined,
    );
  });

  it('counts an explicit false of a switch without default as not set', () => {
    const logCompression = OPTIONS.find((o) => o.flag === 'enable-log-compression')!;
    expect(isOptionSet(logCompression, testConfig({ enableLogCompression: false }))).to.equal(false);
    expect(isOptionSet(logCompression, testConfig({ enableLogCompression: true }))).to.equal(true);
  });

  it('names every refused option in one error', async () => {
    const err = await bootError({ enableAllowlist: true, enableConsole: true });
    expect(err!.message).to.contain('--enable-allowlist (SVC_GRAPHQL_ENABLE_ALLOWLIST)').and.contain('--enable-console (SVC_GRAPHQL_ENABLE_CONSOLE)');
  });

  it('defaults --enable-telemetry to false and refuses true: the engine has no telemetry to send', async () => {
    const telemetry = OPTIONS.find((o) => o.flag === 'enable-telemetry')!;
    expect(telemetry.default).to.equal(false);
    expect(await bootError({ enableTelemetry: false })).to.equal(undefined);
    const err = await bootError({ enableTelemetry: true });
    expect(err!.code).to.equal('E_OPTION_NOT_ENFORCED');
    expect(err!.message).to.contain('--enable-telemetry (SVC_GRAPHQL_ENABLE_TELEMETRY)');
  });

  describe('--experimental-features', () => {
    const label = '--experimental-features (SVC_GRAPHQL_EXPERIMENTAL_FEATURES)';

    it('refuses an unknown name when the option is parsed (E_OPTION_INVALID)', () => {
      const parse = (value: string): unknown => {
        try {
          return parseServerConfig({ flags: {}, env: { SVC_GRAPHQL_EXPERIMENTAL_FEATURES: value } });
        } catch (e) {
          return e;
        }
      };
      const err = parse('hide_stream_fields,time_travel') as BootError;
      expect(err).to.be.instanceOf(BootError);
      expect(err.code).to.equal('E_OPTION_INVALID');
      expect(err.message).to.contain('time_travel').and.contain('SVC_GRAPHQL_EXPERIMENTAL_FEATURES');
      expect(parse('hide_stream_fields,inherited_roles')).to.not.be.instanceOf(Error);
    });

    it('refuses an unknown name given programmatically, at boot', async () => {
      const err = await bootError({ experimentalFeatures: ['time_travel'] });
      expect(err!.code).to.equal('E_OPTION_NOT_ENFORCED');
      expect(err!.message).to.contain(`${label} value 'time_travel'`);
    });

    for (const name of EXPERIMENTAL_FEATURES) {
      const support = EXPERIMENTAL_FEATURE_SUPPORT[name];
      if ('feature' in support) {
        it(`accepts '${name}' only when a plugin provides '${support.feature}'`, async () => {
          const err = await bootError({ experimentalFeatures: [name] });
          expect(err!.code).to.equal('E_OPTION_NOT_ENFORCED');
          expect(err!.message).to.contain(`${label} value '${name}' needs the '${support.feature}' feature`);
          expect(await bootError({ experimentalFeatures: [name] }, [support.feature])).to.equal(undefined);
        });
      } else if (support.built) {
        it(`accepts '${name}' (built)`, async () => {
          expect(await bootError({ experimentalFeatures: [name] })).to.equal(undefined);
        });
      } else {
        it(`refuses '${name}' (not built) with E_OPTION_NOT_ENFORCED naming it`, async () => {
          const err = await bootError({ experimentalFeatures: ['hide_stream_fields', name] });
          expect(err!.code).to.equal('E_OPTION_NOT_ENFORCED');
          expect(err!.message).to.contain(`${label} value '${name}' is not built`);
          expect(err!.message).to.not.contain("'hide_stream_fields'");
        });
      }
    }

    it('keeps inherited_roles accepted', async () => {
      expect(await bootError({ experimentalFeatures: ['inherited_roles'] })).to.equal(undefined);
    });
  });

  it('reports on /v1alpha1/config only what a loaded plugin enforces', () => {
    const config = testConfig({ enableAllowlist: true, enableRemoteSchemaPermissions: true, consoleAssetsDir: '/srv/a' });
    const none = configStatus(config, new ProvidedFeatures([]));
    expect(none).to.include({ is_allow_list_enabled: false, is_remote_schema_permissions_enabled: false, console_assets_dir: null });
    const all = configStatus(
      config,
      new ProvidedFeatures([{ id: 'x/y', provides: ['allowlist', 'remote-schema-permissions', 'console'] }]),
    );
    expect(all).to.include({ is_allow_list_enabled: true, is_remote_schema_permissions_enabled: true, console_assets_dir: '/srv/a' });
  });

  it('makes metadata sections asking for unbuilt enforcement inconsistent objects', () => {
    const none = new ProvidedFeatures([]);
    const doc = {
      version: 3 as const,
      sources: [],
      api_limits: { disabled: false, depth_limit: { global: 5 } },
      graphql_schema_introspection: { disabled_for_roles: ['user'] },
    };
    expect(unenforcedMetadata(doc, none).map((o) => o.type)).to.deep.equal(['api_limits', 'graphql_schema_introspection']);
    expect(unenforcedMetadata({ version: 3, sources: [], api_limits: { disabled: true, depth_limit: { global: 5 } } }, none)).to.deep.equal([]);
    expect(unenforcedMetadata({ version: 3, sources: [], graphql_schema_introspection: { disabled_for_roles: [] } }, none)).to.deep.equal([]);
    const both = new ProvidedFeatures([{ id: 'limits/x', provides: ['api-limits', 'introspection-control'] }]);
    expect(unenforcedMetadata(doc, both)).to.deep.equal([]);
  });
});
