import { expect } from 'chai';
import { Kind, parse, validate, type FieldNode, type OperationDefinitionNode } from 'graphql';
import type { MutationIR } from '../../../core/graphql/ir-mutation.js';
import type { PlanContext, RoleSchema } from '../../../core/graphql/schema-draft.js';
import { authorSpec, blogSource, makeSource, roleSchema } from './fixtures.js';

/** Plans the first root field of a mutation the way the executor does. */
function planMutation(rs: RoleSchema, query: string, variables: Record<string, unknown> = {}): { ir: MutationIR; reads: string[] } {
  const doc = parse(query);
  const errors = validate(rs.schema, doc);
  if (errors.length) throw new Error(errors.map((e) => e.message).join('; '));
  const op = doc.definitions[0] as OperationDefinitionNode;
  const field = op.selectionSet.selections.find((s): s is FieldNode => s.kind === Kind.FIELD)!;
  const reads: string[] = [];
  const ctx: PlanContext = {
    schema: rs.schema,
    fragments: {},
    role: rs.role,
    readVariable: (n) => {
      reads.push(n);
      return variables[n];
    },
    hasVariable: (n) => (op.variableDefinitions ?? []).some((d) => d.variable.name.value === n),
    variableType: () => undefined,
  };
  const planner = rs.roots.mutation.get(field.name.value)!.planner;
  if (planner.kind !== 'db' || !planner.buildMutationIR) throw new Error('not a mutation field');
  return { ir: planner.buildMutationIR(field, rs.schema.getMutationType()!, ctx), reads };
}

describe('graphql planner: mutation IR', () => {
  it('keeps scalar variables as parameters and reads whole-object variables', () => {
    const rs = roleSchema([makeSource('default', [authorSpec()])]);
    const leaf = planMutation(rs, 'mutation ($n: String) { insert_author(objects: [{name: $n}]) { affected_rows } }');
    expect(leaf.reads).to.deep.equal([]);
    if (leaf.ir.kind !== 'insert') throw new Error('expected an insert');
    expect(leaf.ir.insert.rows[0]!.columns).to.deep.equal([
      { column: 'name', value: { value: { kind: 'variable', name: 'n', path: [] }, dbType: 'text' } },
    ]);
    expect(leaf.ir.errorPath).to.equal('$.selectionSet.insert_author.args.objects');

    const whole = planMutation(rs, 'mutation ($rows: [author_insert_input!]!) { insert_author(objects: $rows) { affected_rows } }', {
      rows: [{ name: 'a' }, { id: 7 }],
    });
    expect(whole.reads).to.deep.equal(['rows']);
    if (whole.ir.kind !== 'insert') throw new Error('expected an insert');
    expect(whole.ir.insert.rows.map((r) => r.columns.map((c) => [c.column, c.value.value]))).to.deep.equal([
      [['name', { kind: 'const', value: 'a' }]],
      [['id', { kind: 'const', value: 7 }]],
    ]);
  });

  it('folds the role\'s presets, filter and check into an update', () => {
    const source = blogSource();
    source.tables.get('public.article')!.permissions.update.set('user', {
      columns: ['title'],
      filter: { author_id: { _eq: 'X-Svc-User-Id' } },
      check: { published: { _eq: false } },
      set: { body: 'x-svc-user-id' },
    });
    const rs = roleSchema([source], 'user');
    const { ir } = planMutation(rs, 'mutation { update_article(where: {id: {_eq: 1}}, _set: {headline: "t"}) { affected_rows } }');
    if (ir.kind !== 'update') throw new Error('expected an update');
    expect(ir.update.ops).to.deep.equal([
      { column: 'title', type: 'text', op: '_set', value: { value: { kind: 'const', value: 't' }, dbType: 'text' } },
      { column: 'body', type: 'text', op: '_set', value: { value: { kind: 'session', name: 'x-svc-user-id' }, dbType: 'text' } },
    ]);
    expect(ir.update.permissionFilter).to.deep.equal({
      kind: 'compare',
      lhs: { kind: 'column', name: 'author_id', type: 'int4' },
      op: '_eq',
      rhs: { value: { kind: 'session', name: 'x-svc-user-id' }, dbType: 'int4' },
    });
    expect(ir.update.check).to.have.property('kind', 'compare');
    // The select filter of the role shows (only) its own articles in `returning`.
    expect(ir.returning.selectFilter).to.have.property('kind', 'compare');
  });
});
