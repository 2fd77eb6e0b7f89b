/**
 * The kind-neutral webhook core without a network: the template language, request/response
 * transforms, `{{ENV}}` templates, header resolution, the retry policy and cron schedules.
 */
import { expect } from 'chai';
import {
  applyRequestTransform,
  applyResponseTransform,
  CronSchedule,
  decideRetry,
  KritiError,
  KritiTemplate,
  MissingEnvVarError,
  parseHeaderConfs,
  parseRequestTransform,
  parseRetryAfter,
  resolveEnvTemplate,
  resolveHeaders,
  parseResponseTransform,
  TransformError,
} from '../../../core/webhooks/index.js';

const render = (t: string, body: unknown, session: Record<string, string> | null = null) =>
  KritiTemplate.parse(t).render({ variables: { $body: body as never, $session_variables: session }, session });

describe('webhook template language', () => {
  it('renders paths, optional chaining, defaults, operators and functions', () => {
    const body = { a: { b: [10, 20] }, name: 'ann', list: [1, 2, 3], k: 'b' };
    expect(render('{{ $body.a.b[1] }}', body)).to.equal(20);
    expect(render("{{ $body['a'][$body.k][0] }}", body)).to.equal(10);
    expect(render('{{ $body?.missing?.deep }}', body)).to.equal(null);
    expect(render('{{ $body?.missing ?? "x" }}', body)).to.equal('x');
    expect(render('{{ $body.a.b[0] > 5 && $body.name == "ann" }}', body)).to.equal(true);
    expect(render('{{ 2 in $body.list }}', body)).to.equal(true);
    expect(render('{{ not(true) }}', body)).to.equal(false);
    expect(render('"hi {{ toUpper($body.name) }} #{{ size($body.list) }}"', body)).to.equal('hi ANN #3');
    expect(render('{{ concat([$body.list, [4]]) }}', body)).to.deep.equal([1, 2, 3, 4]);
    expect(render('{{ fromPairs([["a", 1]]) }}', body)).to.deep.equal({ a: 1 });
    expect(render('{{ toPairs({"a": 1}) }}', body)).to.deep.equal([['a', 1]]);
    expect(render('{{ removeNulls([1, null, 2]) }}', body)).to.deep.equal([1, 2]);
    expect(render('{{ escapeUri("a b&c") }}', body)).to.equal('a%20b%26c');
    expect(render('{{ getSessionVariable("X-Svc-Role") }}', body, { 'x-svc-role': 'user' })).to.equal('user');
  });

  it('renders if/elif/else and range blocks', () => {
    const t = '{"kind": {{ if $body.n > 10 }} "big" {{ elif $body.n > 5 }} "mid" {{ else }} "small" {{ end }}, "xs": {{ range i, x := $body.xs }} {"i": {{ i }}, "x": {{ x }}} {{ end }}}';
    expect(render(t, { n: 7, xs: ['a', 'b'] })).to.deep.equal({ kind: 'mid', xs: [{ i: 0, x: 'a' }, { i: 1, x: 'b' }] });
    expect(render('{{ range _, x := $body }} {{ x }} {{ end }}', [1, 2])).to.deep.equal([1, 2]);
  });

  it('reports parse and evaluation errors with their kind and position', () => {
    try {
      KritiTemplate.parse('{"a":\n  {{ $body. }}}');
      expect.fail('parsed');
    } catch (e) {
      expect(e).to.be.instanceOf(KritiError);
      const j = (e as KritiError).toJSON();
      expect(j.error_code).to.equal('Parse Error');
      expect(j.source_position.start_line).to.equal(2);
    }
    expect(() => render('{{ $body.nope }}', {})).to.throw(KritiError, 'Cannot find key "nope"');
    expect(() => render('{{ $nope }}', {})).to.throw(KritiError, /not in scope/);
    expect(() => render('{{ getSessionVariable("x-svc-user-id") }}', {}, {})).to.throw(KritiError, 'Session variable "x-svc-user-id" not found');
    expect(() => KritiTemplate.parse('{{ if true }} 1 {{ end }}')).to.throw(KritiError, /else/);
  });
});

describe('request and response transforms', () => {
  const base = { method: 'POST', url: 'http://h/p?x=1', headers: [['Content-Type', 'application/json'], ['X-Old', 'o']] as Array<[string, string]>, body: '{"a":1}' };

  it('changes method, url, query, headers and body from the original request', () => {
    const t = parseRequestTransform(
      {
        version: 2,
        method: 'patch',
        url: '{{$base_url}}/more',
        query_params: { q: '{{$body.a}}', gone: '{{ null }}', flag: null },
        request_headers: { add_headers: { 'X-New': '{{$body.a}}' }, remove_headers: ['x-old'] },
        body: { action: 'transform', template: '{"b": {{$body.a}}}' },
      },
      '$.args',
    );
    const out = applyRequestTransform(t, base, { body: { a: 1 }, sessionVariables: null, baseUrl: 'http://h/p' });
    expect(out).to.deep.equal({
      method: 'PATCH',
      url: 'http://h/p/more?q=1&flag',
      headers: [['Content-Type', 'application/json'], ['X-New', '1']],
      body: '{"b":1}',
    });
  });

  it('removes the body, or form-encodes it (v2 form_template, v1 content_type)', () => {
    const remove = parseRequestTransform({ version: 2, body: { action: 'remove' } }, '$');
    expect(applyRequestTransform(remove, base, { body: null, sessionVariables: null, baseUrl: '' }).body).to.equal(null);
    const form = parseRequestTransform({ version: 2, body: { action: 'x_www_form_urlencoded', form_template: { a: '{{$body.a}}', n: '{{ null }}' } } }, '$');
    expect(applyRequestTransform(form, base, { body: { a: 'x y' }, sessionVariables: null, baseUrl: '' }).body).to.equal('a=x%20y');
    const v1 = parseRequestTransform({ body: '{"k": {{$body.a}}}', content_type: 'application/x-www-form-urlencoded' }, '$');
    const out = applyRequestTransform(v1, base, { body: { a: 'v' }, sessionVariables: null, baseUrl: '' });
    expect(out.body).to.equal('k=v');
    expect(out.headers).to.deep.include(['Content-Type', 'application/x-www-form-urlencoded']);
    expect(v1.definition).to.deep.equal({ version: 1, template_engine: 'Kriti', body: '{"k": {{$body.a}}}', content_type: 'application/x-www-form-urlencoded' });
  });

  it('refuses bad definitions at parse time and bad results at apply time', () => {
    expect(() => parseRequestTransform({ version: 3 }, '$')).to.throw('expected 1 or 2, encountered 3');
    expect(() => parseRequestTransform({ url: '{{ $body. }}' }, '$')).to.throw('request transform validation failed');
    expect(() => parseResponseTransform({ body: '{{ ( }}' }, '$')).to.throw('response transform validation failed');
    const t = parseRequestTransform({ url: '{{ $body.n }}' }, '$');
    try {
      applyRequestTransform(t, base, { body: { n: 5 }, sessionVariables: null, baseUrl: '' });
      expect.fail('applied');
    } catch (e) {
      expect(e).to.be.instanceOf(TransformError);
      expect((e as TransformError).errors[0]!.message).to.equal('URL Transforms must produce a JSON String: 5');
    }
  });

  it('reshapes a response body with the status and the request in scope', () => {
    const t = parseResponseTransform({ version: 2, body: { action: 'transform', template: '{"s": {{$response.status}}, "r": {{$request.x}}, "b": {{$body.v}}}' } }, '$');
    expect(applyResponseTransform(t, '{"v":2}', { body: { v: 2 }, request: { x: 1 }, status: 201, sessionVariables: null })).to.equal('{"s":201,"r":1,"b":2}');
  });
});

describe('webhook configuration and retries', () => {
  it('resolves {{ENV}} templates and configured headers, naming an unset variable', () => {
    expect(resolveEnvTemplate('{{HOST}}/x/{{ P }}', { HOST: 'http://h', P: 'y' })).to.equal('http://h/x/y');
    expect(() => resolveEnvTemplate('{{NOPE}}', {})).to.throw(MissingEnvVarError, "environment variable 'NOPE' not set");
    const confs = parseHeaderConfs([{ name: 'A', value: 'v-{{X}}' }, { name: 'B', value_from_env: 'Y' }], '$.headers');
    expect(resolveHeaders(confs, { X: '1', Y: '2' })).to.deep.equal([{ name: 'A', value: 'v-1' }, { name: 'B', value: '2' }]);
    expect(() => parseHeaderConfs([{ name: 'A' }], '$.headers')).to.throw('expecting value or value_from_env keys');
  });

  it('retries until num_retries attempts are spent, Retry-After extending it', () => {
    expect(decideRetry(0, 2, 10, null)).to.deep.equal({ giveUp: false, delaySeconds: 10 });
    expect(decideRetry(2, 2, 10, null)).to.deep.equal({ giveUp: true, delaySeconds: 0 });
    expect(decideRetry(2, 2, 10, 3)).to.deep.equal({ giveUp: false, delaySeconds: 3 });
    expect(parseRetryAfter('5')).to.equal(5);
    expect(parseRetryAfter('0')).to.equal(null);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT')).to.equal(null);
  });

  it('parses five-field cron schedules in UTC', () => {
    const s = CronSchedule.parse('*/15 * * * *');
    expect(s.next(new Date('2024-01-01T10:07:00Z')).toISOString()).to.equal('2024-01-01T10:15:00.000Z');
    expect(s.upcoming(new Date('2024-01-01T10:07:00Z'), 2).map((d) => d.toISOString())).to.deep.equal(['2024-01-01T10:15:00.000Z', '2024-01-01T10:30:00.000Z']);
    expect(() => CronSchedule.parse('* * *')).to.throw(/expected 5 fields/);
  });
});
