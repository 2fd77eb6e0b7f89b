import { expect } from 'chai';
import { compileMultiplexed } from '../../../../plugins/db/postgres/sql/multiplexed.js';
import { cohortJson, textOf } from '../../../../plugins/db/postgres/multiplexed-run.js';
import type { SelectIR } from '../../../../core/graphql/ir.js';

const select = (over: Partial<SelectIR> = {}): SelectIR => ({
  from: { schema: 'public', name: 'article' },
  where: {
    kind: 'compare',
    lhs: { kind: 'column', name: 'id', type: 'int4' },
    op: '_eq',
    rhs: { value: { kind: 'variable', name: 'id', path: [] }, dbType: 'int4' },
  },
  permissionFilter: {
    kind: 'compare',
    lhs: { kind: 'column', name: 'author_id', type: 'int4' },
    op: '_eq',
    rhs: { value: { kind: 'session', name: 'X-Svc-User-Id' }, dbType: 'int4' },
  },
  orderBy: [],
  distinctOn: [],
  limit: null,
  offset: null,
  permissionLimit: null,
  fields: [{ kind: 'column', alias: 'title', name: 'title', type: 'text' }],
  ...over,
});

describe('db/postgres: multiplexed subscription statements', () => {
  it('has the reference shape: UNNEST of cohort ids and JSON variables, one lateral per cohort', () => {
    const s = compileMultiplexed([{ kind: 'root', key: 'article', ir: { kind: 'select', source: 'default', select: select(), single: false } }], {
      stringifyNumericTypes: false,
    });
    expect(s.text).to.match(
      /^SELECT "__subs"\."result_id"::text, "__fld_resp"\."root" AS "result" FROM UNNEST\(\(\$1\)::uuid\[\], \(\$2\)::json\[\]\) AS "__subs"\("result_id", "result_vars"\) LEFT OUTER JOIN LATERAL \(SELECT \(json_build_object\('article', /,
    );
    // Values and session variables come from the cohort's JSON, never from other parameters.
    expect(s.text).to.contain(`("__subs"."result_vars" #>> '{synthetic,0}')::int4`);
    expect(s.text).to.contain(`("__subs"."result_vars" #>> '{session,x-svc-user-id}')::int4`);
    expect(s.text).to.not.match(/\$3/);
    expect(s.streaming).to.equal(false);
    expect(s.params).to.have.length(1);
  });

  it('compiles a stream: cursor comparison, ordered batch WITH TIES, and the next cursor', () => {
    const s = compileMultiplexed(
      [
        {
          kind: 'stream',
          key: 'article_stream',
          ir: {
            kind: 'stream',
            source: 'default',
            select: select({ where: null }),
            cursor: { column: 'priority', type: 'int4', direction: 'asc', initial: { value: { kind: 'const', value: 0 }, dbType: 'int4' } },
            batchSize: { value: { kind: 'const', value: 2 }, dbType: 'int4' },
          },
        },
      ],
      { stringifyNumericTypes: false },
    );
    expect(s.streaming).to.equal(true);
    expect(s.cursorColumn).to.equal('priority');
    expect(s.text).to.contain(`"priority" > ("__subs"."result_vars" #>> '{cursor,priority}')::int4`);
    expect(s.text).to.match(/ORDER BY "_\w+"\."priority" ASC NULLS LAST FETCH FIRST \(2\) ROWS WITH TIES/);
    expect(s.text).to.contain('(MAX("');
  });

  it('writes each cohort as {session, synthetic, cursor} with values as PostgreSQL text', () => {
    const s = compileMultiplexed([{ kind: 'root', key: 'a', ir: { kind: 'select', source: 'default', select: select(), single: false } }], {
      stringifyNumericTypes: false,
    });
    expect(JSON.parse(cohortJson(s, { id: 'x', session: { 'x-svc-user-id': '3' }, values: [7] }))).to.deep.equal({
      session: { 'x-svc-user-id': '3' },
      synthetic: ['7'],
    });
    expect(textOf([1, null, 'a"b', ['c']])).to.equal('{"1",NULL,"a\\"b",{"c"}}');
    expect(textOf(true)).to.equal('true');
  });
});
