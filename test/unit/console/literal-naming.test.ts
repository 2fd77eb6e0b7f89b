/**
 * The console's data pages write user input into GraphQL text: values must only ever become
 * literals, and the field names must be the ones the engine generates for a table.
 */
import { expect } from 'chai';
import { parse, print } from 'graphql';
import { columnValue, fieldName, toLiteral } from '../../../plugins/api/console/app/src/api/literal.js';
import { tableFields } from '../../../plugins/api/console/app/src/api/naming.js';
import type { SourceEntry, TableEntry } from '../../../plugins/api/console/app/src/api/metadata.js';

const valueOf = (literal: string): unknown => {
  const doc = parse(`{ f(a: ${literal}) }`);
  // The literal parses as exactly one argument value: nothing leaked into the document.
  expect(print(doc).split('\n').length).to.equal(3);
  return doc;
};

describe('console: GraphQL literals of user input', () => {
  it('keeps hostile strings inside one string literal', () => {
    for (const text of ['") { __schema { types { name } } } #', '\\" }', 'line\nbreak\u2028', '\u0000\u001f', '"""block"""']) {
      const lit = toLiteral(text);
      valueOf(lit);
      const doc = parse(`{ f(a: ${lit}) }`) as unknown as { definitions: { selectionSet: { selections: { arguments: { value: { value: string } }[] }[] } }[] };
      expect(doc.definitions[0]!.selectionSet.selections[0]!.arguments[0]!.value.value).to.equal(text);
    }
  });

  it('types values from the column type and refuses what does not fit', () => {
    expect(columnValue({ name: 'n', type: 'integer' }, ' 42 ')).to.equal(42);
    expect(() => columnValue({ name: 'n', type: 'integer' }, '4; drop')).to.throw('expected an integer');
    expect(columnValue({ name: 'b', type: 'boolean' }, 'true')).to.equal(true);
    expect(() => columnValue({ name: 'b', type: 'boolean' }, 'yes')).to.throw('true or false');
    expect(columnValue({ name: 'x', type: 'numeric(10,2)' }, '1.50')).to.equal('1.50');
    expect(columnValue({ name: 'j', type: 'jsonb' }, '{"a": [1, "b"]}')).to.deep.equal({ __json: { a: [1, 'b'] } });
    expect(toLiteral({ __json: { a: [1, 'b'] } })).to.equal('{a: [1, "b"]}');
  });

  it('writes enums and object keys only when they are GraphQL names', () => {
    expect(toLiteral({ id: { __enum: 'desc' } })).to.equal('{id: desc}');
    expect(() => toLiteral({ __enum: 'desc }' })).to.throw('bad enum value');
    expect(() => toLiteral({ 'a b': 1 })).to.throw('not a GraphQL name');
    expect(() => fieldName('x { y }')).to.throw('not a GraphQL name');
    expect(() => toLiteral(Number.NaN)).to.throw('not a finite number');
    valueOf(toLiteral({ _and: [{ id: { _eq: 1 } }, { title: { _in: ['a', 'b'] } }], n: null }));
  });
});

describe('console: GraphQL names of a tracked table', () => {
  const source = (customization?: SourceEntry['customization']): SourceEntry => ({ name: 'default', kind: 'postgres', tables: [], configuration: {}, customization });
  const table = (schema: string, name: string, configuration?: TableEntry['configuration']): TableEntry => ({ table: { schema, name }, configuration });

  it('uses the defaults: the table name in public, schema_table elsewhere', () => {
    const f = tableFields(source(), table('public', 'articles'));
    expect([f.select, f.selectAggregate, f.insertOne, f.updateByPk, f.deleteByPk, f.namespace]).to.deep.equal([
      'articles', 'articles_aggregate', 'insert_articles_one', 'update_articles_by_pk', 'delete_articles_by_pk', null,
    ]);
    expect(tableFields(source(), table('sales', 'orders')).select).to.equal('sales_orders');
  });

  it('follows custom names, custom root fields, column names and source customization', () => {
    const f = tableFields(
      source({ root_fields: { namespace: 'shop', prefix: 'p_', suffix: '_s' }, naming_convention: 'graphql-default' }),
      table('public', 'order_items', { custom_root_fields: { select: 'items', insert_one: { name: 'addItem' } }, column_config: { unit_price: { custom_name: 'price' } } }),
    );
    expect(f.namespace).to.equal('shop');
    expect(f.select).to.equal('p_items_s');
    expect(f.insertOne).to.equal('p_addItem_s');
    expect(f.updateByPk).to.equal('p_updateOrderItemsByPk_s');
    expect(f.column('unit_price')).to.equal('price');
    expect(f.column('created_at')).to.equal('createdAt');
  });
});
