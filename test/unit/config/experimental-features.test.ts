import { expect } from 'chai';
import { BootError } from '../../../core/errors.js';
import { parseServerConfig } from '../../../core/config/parse.js';

describe('--experimental-features', () => {
  it('reads the known features, any case, from the flag or the environment', () => {
    const { config } = parseServerConfig({ flags: { 'experimental-features': 'inherited_roles,HIDE_STREAM_FIELDS' }, env: {} });
    expect(config.experimentalFeatures).to.deep.equal(['inherited_roles', 'hide_stream_fields']);
    const fromEnv = parseServerConfig({ flags: {}, env: { SVC_GRAPHQL_EXPERIMENTAL_FEATURES: 'inherited_roles' } });
    expect(fromEnv.config.experimentalFeatures).to.deep.equal(['inherited_roles']);
  });

  it("takes the reference engine's names for the features the spec names neutrally", () => {
    const { config } = parseServerConfig({ flags: { 'experimental-features': 'apollo_federation,BigQuery_String_Numeric_Input' }, env: {} });
    expect(config.experimentalFeatures).to.deep.equal(['gateway_federation', 'wh_string_numeric_input']);
  });

  it('refuses an unknown feature at start-up with a coded error naming it', () => {
    let caught: unknown;
    try {
      parseServerConfig({ flags: { 'experimental-features': 'inherited_roles,time_travel' }, env: {} });
    } catch (e) {
      caught = e;
    }
    expect(caught).to.be.instanceOf(BootError);
    expect((caught as BootError).code).to.equal('E_OPTION_INVALID');
    expect((caught as BootError).message).to.include('"time_travel" is not allowed').and.include('--experimental-features');
  });
});
