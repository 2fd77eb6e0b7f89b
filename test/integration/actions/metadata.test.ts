import { expect } from 'chai';
import { call, metadata } from '../../helpers/engine.js';
import { CUSTOM_TYPES, startActionFixture, type ActionFixture } from './fixture.js';

describe('actions and custom types: metadata', function () {
  this.timeout(30000);
  let f: ActionFixture;

  before(async () => {
    f = await startActionFixture('actions_meta');
  });
  after(async () => {
    await f.close();
  });

  const create = (name: string, definition: Record<string, unknown>) =>
    metadata(f.engine, { type: 'create_action', args: { name, definition: { handler: 'http://127.0.0.1:9/h', ...definition } } });

  it('refuses custom types that do not hold together, with the reference messages', async () => {
    const bad = await metadata(f.engine, {
      type: 'set_custom_types',
      args: {
        objects: [
          { name: 'A', fields: [{ name: 'x', type: 'Nope' }], relationships: [{ name: 'r', type: 'object', remote_table: 'missing', field_mapping: { x: 'id' } }] },
          { name: 'author', fields: [{ name: 'y', type: 'Int' }] },
        ],
        input_objects: [{ name: 'A', fields: [{ name: 'z', type: 'A' }] }],
      },
    });
    expect(bad.status).to.equal(400);
    expect(bad.body.code).to.equal('invalid-configuration');
    expect(bad.body.error).to.include('validation for the given custom types failed for the following reasons:');
    expect(bad.body.error).to.include('duplicate type names: "A"');
    expect(bad.body.error).to.include('the type names "author" are already used by tracked tables');
    expect(bad.body.error).to.include('the type "Nope" for field "x" in  object type "A" does not exist');
    expect(bad.body.error).to.include('the remote table "missing" for relationship "r" of object type "A" does not exist');
    const column = await metadata(f.engine, {
      type: 'set_custom_types',
      args: { objects: [{ name: 'B', fields: [{ name: 'x', type: 'Int' }], relationships: [{ name: 'r', type: 'array', remote_table: 'author', field_mapping: { x: 'nope' } }] }] },
    });
    expect(column.body.error).to.equal(
      'Inconsistent object: validation for the given custom types failed because the column "nope" of remote table "author" for relationship "r" of object type "B" does not exist',
    );
    const shape = await metadata(f.engine, { type: 'set_custom_types', args: { objects: [{ name: 'C', fields: [{ name: 'x', type: 'Int!!' }] }] } });
    expect(shape.body).to.deep.include({ code: 'parse-failed', path: '$.args.objects[0].fields[0].type' });
  });

  it('refuses actions with unknown types or an unset environment variable, and duplicates', async () => {
    const output = await create('a1', { output_type: 'Missing' });
    expect(output.body).to.deep.include({ code: 'invalid-configuration', error: 'Inconsistent object: the type: "Missing" is not an object type defined in custom types' });
    expect(output.body.internal[0]).to.deep.include({ type: 'action', name: 'action a1' });
    const arg = await create('a1', { output_type: 'UserOutput', arguments: [{ name: 'x', type: 'UserOutput' }] });
    expect(arg.body.error).to.equal('Inconsistent object: the type: "UserOutput" is not defined in custom types or it is not a scalar/enum/input_object');
    const env = await create('a1', { output_type: 'UserOutput', handler: '{{NO_SUCH_ENV}}/x' });
    expect(env.body.error).to.equal("Inconsistent object: environment variable 'NO_SUCH_ENV' not set");
    expect((await create('a1', { output_type: 'UserOutput' })).status).to.equal(200);
    const dup = await create('a1', { output_type: 'UserOutput' });
    expect(dup.body).to.deep.include({ code: 'already-exists', error: 'action with name "a1" already exists' });
    const clash = await create('author', { type: 'query', output_type: 'UserOutput' });
    expect(clash.body.error).to.equal('Inconsistent object: the query root field "author" already exists');
    const asyncQuery = await create('a2', { kind: 'asynchronous', type: 'query', output_type: 'UserOutput' });
    expect(asyncQuery.body.code).to.equal('parse-failed');
    const missing = await metadata(f.engine, { type: 'drop_action', args: { name: 'zzz' } });
    expect(missing.body).to.deep.include({ code: 'not-exists', error: 'action with name "zzz" does not exist' });
    // Removing a type an action uses is refused: the action would become inconsistent.
    const breaking = await metadata(f.engine, { type: 'set_custom_types', args: { scalars: [{ name: 'Email' }] } });
    expect(breaking.status).to.equal(400);
    expect(breaking.body.internal.map((o: { name: string }) => o.name)).to.include('action a1');
  });

  it('update_action changes the kind; legacy /v1/query forms work', async () => {
    expect((await metadata(f.engine, { type: 'update_action', args: { name: 'a1', definition: { kind: 'asynchronous', handler: 'http://h', output_type: 'UserOutput' } } })).status).to.equal(200);
    const schema = await f.admin(`{ __type(name: "mutation_root") { fields { name type { kind ofType { name } } } } }`);
    const field = schema.data.__type.fields.find((x: { name: string }) => x.name === 'a1');
    expect(field.type).to.deep.equal({ kind: 'NON_NULL', ofType: { name: 'uuid' } });
    const legacy = await call(f.engine, '/v1/query', { type: 'create_action', args: { name: 'a3', definition: { handler: 'http://h', output_type: 'Info' } } });
    expect(legacy.status).to.equal(200);
    expect((await call(f.engine, '/v1/query', { type: 'drop_action', args: { name: 'a3' } })).status).to.equal(200);
  });

  it('round-trips actions, permissions and custom types through export and replace; reports inconsistent ones', async () => {
    await metadata(f.engine, { type: 'create_action_permission', args: { action: 'a1', role: 'user', comment: 'ok' } });
    const exported = (await metadata(f.engine, { type: 'export_metadata', args: {} })).body;
    // Table names are stored qualified.
    const expectedTypes = structuredClone(CUSTOM_TYPES);
    expectedTypes.objects[0]!.relationships![0]!.remote_table = { schema: 'public', name: 'author' } as never;
    expect(exported.custom_types).to.deep.equal(expectedTypes);
    expect(exported.actions).to.deep.equal([
      {
        name: 'a1',
        definition: { kind: 'asynchronous', type: 'mutation', arguments: [], output_type: 'UserOutput', handler: 'http://h', headers: [], forward_client_headers: false, timeout: 30 },
        permissions: [{ role: 'user', comment: 'ok' }],
      },
    ]);
    await metadata(f.engine, { type: 'clear_metadata', args: {} });
    expect((await metadata(f.engine, { type: 'replace_metadata', args: exported })).status).to.equal(200);
    expect((await metadata(f.engine, { type: 'export_metadata', args: {} })).body).to.deep.equal(exported);
    const broken = { ...exported, actions: [{ ...exported.actions[0], definition: { ...exported.actions[0].definition, handler: '{{UNSET_HANDLER_VAR}}' } }] };
    const replaced = await metadata(f.engine, { type: 'replace_metadata', version: 2, args: { allow_inconsistent_metadata: true, metadata: broken } });
    expect(replaced.body.is_consistent).to.equal(false);
    expect(replaced.body.inconsistent_objects).to.deep.equal([
      { type: 'action', name: 'action a1', definition: broken.actions[0], reason: "Inconsistent object: environment variable 'UNSET_HANDLER_VAR' not set" },
    ]);
    expect((await f.admin(`mutation { a1 }`)).errors[0].extensions.code).to.equal('validation-failed');
    await metadata(f.engine, { type: 'drop_inconsistent_metadata', args: {} });
    expect((await metadata(f.engine, { type: 'export_metadata', args: {} })).body.actions).to.equal(undefined);
  });
});
