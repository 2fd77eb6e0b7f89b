/**
 * The Citus join rules (plugins/db/citus/join-rules.ts) over every pair of distribution types,
 * both relationship kinds and both ways of defining them, and the reading of `pg_dist_partition`
 * rows into distributions (plugins/db/citus/distribution.ts).
 */
import { expect } from 'chai';
import type { CatalogTable, RelationshipCheck, TableDistribution } from '../../../../core/sdk/index.js';
import { classify } from '../../../../plugins/db/citus/distribution.js';
import { checkCitusRelationship } from '../../../../plugins/db/citus/join-rules.js';

function table(name: string, distribution?: TableDistribution, schema = 'public'): CatalogTable {
  return {
    schema,
    name,
    kind: 'table',
    description: null,
    columns: [],
    primaryKey: null,
    uniqueConstraints: [],
    foreignKeys: [],
    insertable: true,
    updatable: true,
    deletable: true,
    ...(distribution ? { distribution } : {}),
  };
}

const LOCAL: TableDistribution = { kind: 'local' };
const REFERENCE: TableDistribution = { kind: 'reference' };
const dist = (column: string | null, colocation = 1): TableDistribution => ({ kind: 'distributed', column, colocation });

function check(kind: RelationshipCheck['kind'], from: CatalogTable, to: CatalogTable, mapping: Array<[string, string]> = [['a', 'b']], using: RelationshipCheck['using'] = 'foreign_key'): string | null {
  return checkCitusRelationship({ kind, using, table: from, target: to, mapping });
}

describe('db/citus join rules', () => {
  it('follows the reference table of allowed relationships between distribution types', () => {
    const tables = { local: table('l', LOCAL), reference: table('r', REFERENCE), distributed: table('d', dist('a')) };
    // [from][to] → allowed kinds, as the reference's compatibility page lists them.
    const allowed: Record<string, Record<string, string[]>> = {
      local: { local: ['object', 'array'], reference: ['object', 'array'], distributed: [] },
      reference: { local: ['object', 'array'], reference: ['object', 'array'], distributed: [] },
      distributed: { local: [], reference: ['object'], distributed: ['object', 'array'] },
    };
    const target = { ...tables, distributed: table('d2', dist('b')) };
    for (const from of ['local', 'reference', 'distributed'] as const) {
      for (const to of ['local', 'reference', 'distributed'] as const) {
        for (const kind of ['object', 'array'] as const) {
          for (const using of ['foreign_key', 'manual'] as const) {
            const refusal = check(kind, tables[from], target[to], [['a', 'b']], using);
            const expected = allowed[from]![to]!.includes(kind)
              ? null
              : `${from} tables (${tables[from].name}) cannot have an ${kind} relationship against a ${to} table (${target[to].name})`;
            expect(refusal, `${from} → ${to} ${kind} (${using})`).to.equal(expected);
          }
        }
      }
    }
  });

  it('names tables outside public with their schema, as the reference prints them', () => {
    expect(check('object', table('l', LOCAL, 'shop'), table('d', dist('a')))).to.equal('local tables (shop.l) cannot have an object relationship against a distributed table (d)');
  });

  it('joins distributed tables only within one colocation group, on their distribution columns', () => {
    const company = table('company', dist('id', 3));
    const campaign = table('campaign', dist('company_id', 3));
    expect(check('array', company, campaign, [['id', 'company_id']])).to.equal(null);
    expect(check('object', campaign, company, [['company_id', 'id'], ['name', 'name']])).to.equal(null);
    expect(check('object', campaign, company, [['id', 'id']])).to.equal(
      'a relationship between distributed tables (campaign) and (company) must join their distribution columns: "company_id" with "id"',
    );
    expect(check('object', campaign, table('ad', dist('company_id', 4)), [['company_id', 'company_id']])).to.equal(
      'distributed tables (campaign) and (ad) are not colocated: a relationship between distributed tables needs both in one colocation group',
    );
    // Colocation 0 (range and append tables) is nobody's group but the table's own.
    expect(check('object', table('x', dist('a', 0)), table('y', dist('a', 0)), [['a', 'a']])).to.match(/are not colocated/);
    expect(check('array', table('x', dist('a', 0)), table('x', dist('a', 0)), [['a', 'a']])).to.equal(null);
    expect(check('array', table('x', dist('a', 0)), table('x', dist('a', 0)), [['id', 'parent_id']])).to.match(/must join their distribution columns/);
  });

  it('joins single-shard tables of one group on any column', () => {
    expect(check('object', table('x', dist(null, 7)), table('y', dist(null, 7)), [['a', 'b']])).to.equal(null);
    expect(check('object', table('x', dist(null, 7)), table('y', dist(null, 8)), [['a', 'b']])).to.match(/are not colocated/);
  });

  it('judges nothing for tables without a distribution (catalogs of other kinds)', () => {
    expect(check('array', table('a'), table('b', dist('x')))).to.equal(null);
  });
});

describe('db/citus distribution of pg_dist_partition rows', () => {
  it('reads hash, range and append tables as distributed by their column', () => {
    for (const method of ['h', 'r', 'a']) {
      expect(classify({ method, repmodel: 's', colocation: 2, column: 'id' })).to.deep.equal({ kind: 'distributed', column: 'id', colocation: 2 });
    }
  });

  it('reads partmethod n as reference, Citus-managed local or single-shard distributed', () => {
    expect(classify({ method: 'n', repmodel: 't', colocation: 1, column: null })).to.deep.equal({ kind: 'reference' });
    expect(classify({ method: 'n', repmodel: 'c', colocation: 1, column: null })).to.deep.equal({ kind: 'reference' });
    expect(classify({ method: 'n', repmodel: 's', colocation: 0, column: null })).to.deep.equal({ kind: 'local' });
    expect(classify({ method: 'n', repmodel: 's', colocation: 5, column: null })).to.deep.equal({ kind: 'distributed', column: null, colocation: 5 });
  });
});
