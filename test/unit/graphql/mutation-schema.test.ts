import { expect } from 'chai';
import { printType } from 'graphql';
import { authorSpec, blogSource, makeSource, roleSchema, type TableSpec } from './fixtures.js';
import { description, signature, typeNames } from './schema-helpers.js';

describe('graphql schema: mutations of the reference author example', () => {
  const { schema } = roleSchema([makeSource('default', [authorSpec()])]);

  it('has the reference mutation root fields', () => {
    expect(signature(schema, 'mutation_root')).to.deep.equal([
      'delete_author(where: author_bool_exp!): author_mutation_response',
      'delete_author_by_pk(id: Int!): author',
      'insert_author(objects: [author_insert_input!]!, on_conflict: author_on_conflict): author_mutation_response',
      'insert_author_one(object: author_insert_input!, on_conflict: author_on_conflict): author',
      'update_author(_inc: author_inc_input, _set: author_set_input, where: author_bool_exp!): author_mutation_response',
      'update_author_by_pk(_inc: author_inc_input, _set: author_set_input, pk_columns: author_pk_columns_input!): author',
      'update_author_many(updates: [author_updates!]!): [author_mutation_response]',
    ]);
  });

  it('has the reference mutation types', () => {
    expect(signature(schema, 'author_constraint')).to.deep.equal(['author_pkey']);
    expect(signature(schema, 'author_inc_input')).to.deep.equal(['id: Int']);
    expect(signature(schema, 'author_insert_input')).to.deep.equal(['id: Int', 'name: String']);
    expect(signature(schema, 'author_mutation_response')).to.deep.equal(['affected_rows: Int!', 'returning: [author!]!']);
    expect(printType(schema.getType('author_on_conflict')!)).to.contain('update_columns: [author_update_column!]! = []');
    expect(signature(schema, 'author_on_conflict')).to.deep.equal([
      'constraint: author_constraint!',
      'update_columns: [author_update_column!]!',
      'where: author_bool_exp',
    ]);
    expect(signature(schema, 'author_pk_columns_input')).to.deep.equal(['id: Int!']);
    expect(signature(schema, 'author_set_input')).to.deep.equal(['id: Int', 'name: String']);
    expect(signature(schema, 'author_update_column')).to.deep.equal(['id', 'name']);
    expect(signature(schema, 'author_updates')).to.deep.equal(['_inc: author_inc_input', '_set: author_set_input', 'where: author_bool_exp!']);
    for (const absent of ['author_obj_rel_insert_input', 'author_arr_rel_insert_input', 'author_append_input', 'author_delete_key_input']) {
      expect(typeNames(schema)).to.not.include(absent);
    }
  });

  it('uses the reference descriptions', () => {
    const d = (t: string, f?: string) => description(schema, t, f);
    expect(d('mutation_root', 'insert_author')).to.equal('insert data into the table: "author"');
    expect(d('mutation_root', 'insert_author_one')).to.equal('insert a single row into the table: "author"');
    expect(d('mutation_root', 'update_author')).to.equal('update data of the table: "author"');
    expect(d('mutation_root', 'update_author_by_pk')).to.equal('update single row of the table: "author"');
    expect(d('mutation_root', 'update_author_many')).to.equal('update multiples rows of table: "author"');
    expect(d('mutation_root', 'delete_author')).to.equal('delete data from the table: "author"');
    expect(d('mutation_root', 'delete_author_by_pk')).to.equal('delete single row from the table: "author"');
    const args = (field: string) =>
      Object.fromEntries(schema.getMutationType()!.getFields()[field]!.args.map((a) => [a.name, a.description]));
    expect(args('insert_author')).to.deep.equal({ objects: 'the rows to be inserted', on_conflict: 'upsert condition' });
    expect(args('insert_author_one')).to.deep.equal({ object: 'the row to be inserted', on_conflict: 'upsert condition' });
    expect(args('update_author')).to.deep.equal({
      _inc: 'increments the numeric columns with given value of the filtered values',
      _set: 'sets the columns of the filtered rows to the given values',
      where: 'filter the rows which have to be updated',
    });
    expect(args('update_author_many')).to.deep.equal({ updates: 'updates to execute, in order' });
    expect(args('delete_author')).to.deep.equal({ where: 'filter the rows which have to be deleted' });
    expect(d('author_constraint')).to.equal('unique or primary key constraints on table "author"');
    expect(d('author_constraint', 'author_pkey')).to.equal('unique or primary key constraint on columns "id"');
    expect(d('author_inc_input')).to.equal('input type for incrementing numeric columns in table "author"');
    expect(d('author_insert_input')).to.equal('input type for inserting data into table "author"');
    expect(d('author_mutation_response')).to.equal('response of any mutation on the table "author"');
    expect(d('author_mutation_response', 'affected_rows')).to.equal('number of rows affected by the mutation');
    expect(d('author_mutation_response', 'returning')).to.equal('data from the rows affected by the mutation');
    expect(d('author_on_conflict')).to.equal('on_conflict condition type for table "author"');
    expect(d('author_pk_columns_input')).to.equal('primary key columns input for table: author');
    expect(d('author_set_input')).to.equal('input type for updating data in table "author"');
    expect(d('author_update_column')).to.equal('update columns of table "author"');
    expect(d('author_update_column', 'name')).to.equal('column name');
    expect(d('author_updates')).to.equal(undefined);
  });
});

describe('graphql schema: mutation types of relationships, jsonb and roles', () => {
  it('adds relationship insert inputs and the jsonb operators', () => {
    const { schema } = roleSchema([blogSource()]);
    expect(signature(schema, 'article_insert_input')).to.include.members([
      'author: author_obj_rel_insert_input',
      'comments: comment_arr_rel_insert_input',
      'headline: String',
      'metadata: jsonb',
      'tags: [String!]',
    ]);
    expect(signature(schema, 'author_obj_rel_insert_input')).to.deep.equal(['data: author_insert_input!', 'on_conflict: author_on_conflict']);
    expect(signature(schema, 'comment_arr_rel_insert_input')).to.deep.equal(['data: [comment_insert_input!]!', 'on_conflict: comment_on_conflict']);
    expect(description(schema, 'author_obj_rel_insert_input')).to.equal('input type for inserting object relation for remote table "author"');
    expect(description(schema, 'comment_arr_rel_insert_input')).to.equal('input type for inserting array relation for remote table "comment"');
    const update = schema.getMutationType()!.getFields()['update_article']!;
    expect(update.args.map((a) => `${a.name}: ${String(a.type)}`)).to.deep.equal([
      '_append: article_append_input',
      '_delete_at_path: article_delete_at_path_input',
      '_delete_elem: article_delete_elem_input',
      '_delete_key: article_delete_key_input',
      '_inc: article_inc_input',
      '_prepend: article_prepend_input',
      '_set: article_set_input',
      'where: article_bool_exp!',
    ]);
    expect(signature(schema, 'article_append_input')).to.deep.equal(['metadata: jsonb']);
    expect(signature(schema, 'article_delete_at_path_input')).to.deep.equal(['metadata: [String!]']);
    expect(signature(schema, 'article_delete_elem_input')).to.deep.equal(['metadata: Int']);
    expect(signature(schema, 'article_delete_key_input')).to.deep.equal(['metadata: String']);
    expect(signature(schema, 'article_inc_input')).to.deep.equal(['id: Int', 'author_id: Int', 'rating: numeric'].sort());
    expect(description(schema, 'article_append_input')).to.equal('append existing jsonb value of filtered columns with new jsonb value');
    expect(update.args.find((a) => a.name === '_append')!.description).to.equal(
      'append existing jsonb value of filtered columns with new jsonb value',
    );
  });

  it('narrows mutations to the role: permitted columns, no presets, returning only with select', () => {
    const spec: TableSpec = { ...authorSpec(), columns: [...authorSpec().columns, { name: 'owner', type: 'int4' }] };
    const source = makeSource('default', [spec]);
    const table = source.tables.get('public.author')!;
    table.permissions.insert.set('writer', { columns: ['name', 'owner'], set: { owner: 'X-Svc-User-Id' }, check: {} });
    table.permissions.update.set('writer', { columns: '*', filter: {} });
    const { schema } = roleSchema([source], 'writer');
    expect(signature(schema, 'mutation_root')).to.deep.equal([
      'insert_author(objects: [author_insert_input!]!, on_conflict: author_on_conflict): author_mutation_response',
      'update_author(_inc: author_inc_input, _set: author_set_input, where: author_bool_exp!): author_mutation_response',
      'update_author_many(updates: [author_updates!]!): [author_mutation_response]',
    ]);
    expect(signature(schema, 'author_insert_input')).to.deep.equal(['name: String']);
    expect(signature(schema, 'author_mutation_response')).to.deep.equal(['affected_rows: Int!']);
    expect(signature(schema, 'author_bool_exp')).to.deep.equal(['_and: [author_bool_exp!]', '_not: author_bool_exp', '_or: [author_bool_exp!]']);
    expect(signature(schema, 'author_update_column')).to.deep.equal(['id', 'name', 'owner']);
    expect(typeNames(schema)).to.not.include('author');
  });

  it('leaves out an insert with nothing to give, keeping the schema valid', () => {
    const source = makeSource('default', [authorSpec()]);
    const table = source.tables.get('public.author')!;
    table.permissions.insert.set('stamp', { columns: [], check: {} });
    table.permissions.delete.set('stamp', { filter: {} });
    const { schema } = roleSchema([source], 'stamp');
    expect(signature(schema, 'mutation_root')).to.deep.equal(['delete_author(where: author_bool_exp!): author_mutation_response']);
  });
});
