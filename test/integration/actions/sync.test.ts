import { expect } from 'chai';
import { metadata } from '../../helpers/engine.js';
import { json, startActionFixture, type ActionFixture } from './fixture.js';

describe('actions: synchronous', function () {
  this.timeout(30000);
  let f: ActionFixture;

  before(async () => {
    f = await startActionFixture('actions_sync');
    await f.createAction('create_user', {
      kind: 'synchronous',
      type: 'mutation',
      arguments: [{ name: 'input', type: 'UserInput!' }, { name: 'count', type: 'Int' }],
      output_type: 'UserOutput',
      headers: [{ name: 'X-Configured', value: 'c' }, { name: 'X-From-Env', value_from_env: 'SECRET_VALUE' }],
    }, { comment: 'makes a user' });
    await f.createAction('find_users', { type: 'query', arguments: [{ name: 'ids', type: '[Int!]!' }], output_type: '[UserOutput!]!' });
    f.handlers.set('create_user', (req) => json({ id: 1, name: req.json.input.input.name, tags: ['x'], mood: 'happy', info: { note: 'n', extra: true }, ignored: 5 }));
    f.handlers.set('find_users', (req) => json((req.json.input.ids as number[]).map((id) => ({ id, name: `u${id}` }))));
  });
  after(async () => {
    await f.close();
  });

  it('calls the handler with the reference payload and headers, and answers typed data with relationships', async () => {
    const query = `mutation M($n: String!) {
      made: create_user(input: {name: $n, email: "a@b.c", mood: happy}, count: 2) {
        __typename id name tags mood info { note }
        author { id name }
        articles(order_by: {title: desc}) { title }
      }
    }`;
    const before = f.sink.requests.length;
    const body = await f.admin(query, { n: 'zed' });
    expect(body).to.deep.equal({
      data: {
        made: {
          __typename: 'UserOutput',
          id: 1,
          name: 'zed',
          tags: ['x'],
          mood: 'happy',
          info: { note: 'n' },
          author: { id: 1, name: 'ann' },
          articles: [{ title: 'a2' }, { title: 'a1' }],
        },
      },
    });
    const req = f.sink.requests[before]!;
    expect(req.method).to.equal('POST');
    expect(req.json).to.deep.equal({
      action: { name: 'create_user' },
      input: { input: { name: 'zed', email: 'a@b.c', mood: 'happy' }, count: 2 },
      session_variables: { 'x-svc-role': 'admin' },
      request_query: query,
    });
    expect(req.headers['x-configured']).to.equal('c');
    expect(req.headers['x-from-env']).to.equal('from-env');
    expect(req.headers['content-type']).to.equal('application/json');
    expect(req.headers['user-agent']).to.match(/^svc-graphql-engine\//);
  });

  it('resolves a relationship for a list of outputs in one statement per relationship field', async () => {
    const conn = f.engine.ref.current.sources.get('default')!.connection;
    const original = conn.runQuery.bind(conn);
    let statements = 0;
    conn.runQuery = (...args: Parameters<typeof original>) => {
      statements++;
      return original(...args);
    };
    try {
      const body = await f.admin(`{ find_users(ids: [3, 1, 2, 99]) { id author { name } articles(limit: 2, order_by: {id: asc}) { id } } }`);
      expect(body.data.find_users).to.deep.equal([
        { id: 3, author: { name: 'cid' }, articles: [{ id: 4 }, { id: 5 }] },
        { id: 1, author: { name: 'ann' }, articles: [{ id: 1 }, { id: 2 }] },
        { id: 2, author: { name: 'bob' }, articles: [{ id: 3 }] },
        { id: 99, author: null, articles: [] },
      ]);
      expect(statements).to.equal(2);
    } finally {
      conn.runQuery = original;
    }
  });

  it('honours permissions: a role sees an action only with a permission, and relationships only to tables it may select', async () => {
    const q = `mutation { create_user(input: {name: "u"}) { id author { name } } }`;
    const denied = await f.as('user', '7', q);
    expect(denied.errors[0]).to.deep.include({ message: 'no mutations exist' });
    expect((await metadata(f.engine, { type: 'create_action_permission', args: { action: 'create_user', role: 'user' } })).status).to.equal(200);
    const again = await metadata(f.engine, { type: 'create_action_permission', args: { action: 'create_user', role: 'user' } });
    expect(again.body).to.deep.include({ code: 'already-exists', error: 'permission for role "user" is already defined on "create_user"' });
    const before = f.sink.requests.length;
    expect(await f.as('user', '7', q)).to.deep.equal({ data: { create_user: { id: 1, author: { name: 'ann' } } } });
    expect(f.sink.requests[before]!.json.session_variables).to.deep.equal({ 'x-svc-role': 'user', 'x-svc-user-id': '7' });
    // `user` may not select articles: the relationship field is not there.
    const rel = await f.as('user', '7', `mutation { create_user(input: {name: "u"}) { articles { id } } }`);
    expect(rel.errors[0].message).to.equal("field 'articles' not found in type: 'UserOutput'");
    // A role with only an action permission still gets its own schema.
    await metadata(f.engine, { type: 'create_action_permission', args: { action: 'find_users', role: 'guest' } });
    expect(await f.as('guest', null, `{ find_users(ids: [2]) { id name } }`)).to.deep.equal({ data: { find_users: [{ id: 2, name: 'u2' }] } });
    expect((await metadata(f.engine, { type: 'drop_action_permission', args: { action: 'create_user', role: 'user' } })).status).to.equal(200);
    const gone = await metadata(f.engine, { type: 'drop_action_permission', args: { action: 'create_user', role: 'user' } });
    expect(gone.body).to.deep.include({ code: 'not-exists', error: 'permission for role: "user" is not defined on "create_user"' });
    expect((await f.as('user', '7', q)).errors[0].extensions.code).to.equal('validation-failed');
  });

  describe('handler errors', () => {
    before(async () => {
      await f.createAction('fails', { arguments: [{ name: 'how', type: 'String!' }], output_type: 'UserOutput' });
      await metadata(f.engine, { type: 'create_action_permission', args: { action: 'fails', role: 'user' } });
      f.handlers.set('fails', (req) => {
        switch (req.json.input.how) {
          case 'extensions':
            return json({ message: 'Given email address is not valid', extensions: { code: 'invalid-email', field: 'email' } }, 400);
          case 'code':
            return json({ message: 'Given email address is not valid', code: 'invalid-email' }, 422);
          case 'plain4xx':
            return json({ message: 'nope' }, 403);
          case 'server':
            return json({ oops: true }, 500);
          case 'notjson':
            return { status: 200, body: 'hello' };
          case 'null':
            return json(null);
          case 'missing':
            return json({ name: 'x' });
          case 'nullfield':
            return json({ id: null, name: 'x' });
          case 'badint':
            return json({ id: 'one', name: 'x' });
          case 'array':
            return json([{ id: 1, name: 'x' }]);
          default:
            return json({ id: 1, name: 'x', mood: 'angry' });
        }
      });
    });
    const run = (how: string, role = 'admin') =>
      role === 'admin' ? f.admin(`mutation { fails(how: "${how}") { id name mood } }`) : f.as(role, '1', `mutation { fails(how: "${how}") { id name mood } }`);

    it('passes a 4xx message and extensions through as the reference does', async () => {
      expect(await run('extensions')).to.deep.equal({ errors: [{ extensions: { code: 'invalid-email', field: 'email' }, message: 'Given email address is not valid' }], data: null });
      expect(await run('code')).to.deep.equal({ errors: [{ extensions: { path: '$', code: 'invalid-email' }, message: 'Given email address is not valid' }], data: null });
      expect(await run('plain4xx')).to.deep.equal({ errors: [{ extensions: { path: '$', code: 'unexpected' }, message: 'nope' }], data: null });
    });

    it('answers other statuses as unexpected, with the exchange only for admins', async () => {
      const admin = await run('server');
      expect(admin.errors[0].message).to.equal('internal error');
      expect(admin.errors[0].extensions.code).to.equal('unexpected');
      expect(admin.errors[0].extensions.internal.error).to.equal('expecting 2xx or 4xx status code, but found 500');
      expect(admin.errors[0].extensions.internal.response).to.deep.include({ status: 500, body: { oops: true } });
      expect(admin.errors[0].extensions.internal.request.body.action).to.deep.equal({ name: 'fails' });
      const user = await run('server', 'user');
      expect(user).to.deep.equal({ errors: [{ extensions: { path: '$', code: 'unexpected' }, message: 'internal error' }], data: null });
    });

    it('checks the answer against the output type', async () => {
      const message = async (how: string) => (await run(how)).errors[0].message as string;
      expect(await message('notjson')).to.equal('not a valid json response from webhook');
      expect(await f.admin(`mutation { fails(how: "null") { id } }`)).to.deep.equal({ data: { fails: null } });
      expect(await message('missing')).to.equal('field "id" expected in webhook response, but not found');
      expect(await message('nullfield')).to.equal('expecting not null value for field "id"');
      expect(await message('badint')).to.equal('got scalar String for field "id", expecting Int');
      expect(await message('array')).to.equal('got array for the action webhook response, expecting UserOutput');
      expect(await message('enum')).to.equal('unexpected value "angry" for enum "Mood" in field "mood"');
      const unreachable = await metadata(f.engine, { type: 'update_action', args: { name: 'fails', definition: { handler: 'http://127.0.0.1:9/x', arguments: [{ name: 'how', type: 'String!' }], output_type: 'UserOutput!' } } });
      expect(unreachable.status).to.equal(200);
      const down = await run('x');
      expect(down.errors[0].message).to.equal('http exception when calling webhook');
      expect(down.errors[0].extensions.internal.error).to.match(/ECONNREFUSED/);
    });
  });

  it('applies request and response transforms and forwards client headers', async () => {
    await f.createAction('shaped', {
      type: 'query',
      arguments: [{ name: 'who', type: 'String!' }],
      output_type: 'Info!',
      forward_client_headers: true,
      request_transform: { version: 2, method: 'PUT', url: '{{$base_url}}/shaped', body: { action: 'transform', template: '{"who": {{$body.input.who}}, "role": {{$session_variables["x-svc-role"]}}}' } },
      response_transform: { version: 2, body: { action: 'transform', template: '{"note": {{$body.greeting}}}' } },
    });
    f.sink.respond((req) => (req.path === '/handler/shaped' ? json({ greeting: `hi ${req.json.who}` }) : { status: 404 }));
    try {
      const body = await f.as('admin', null, `{ shaped(who: "kim") { note } }`, undefined, { 'x-custom': 'fwd', 'x-svc-secret': 'no' });
      expect(body).to.deep.equal({ data: { shaped: { note: 'hi kim' } } });
      const req = f.sink.requests[f.sink.requests.length - 1]!;
      expect(req.method).to.equal('PUT');
      expect(req.json).to.deep.equal({ who: 'kim', role: 'admin' });
      expect(req.headers['x-custom']).to.equal('fwd');
      expect(req.headers['x-svc-secret']).to.equal(undefined);
      expect(req.headers['x-forwarded-host']).to.be.a('string');
    } finally {
      f.sink.respond((req) => {
        const h = f.handlers.get(req.json?.action?.name);
        return h ? h(req) : { status: 404 };
      });
    }
  });
});
