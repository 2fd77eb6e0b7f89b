/**
 * An incremental resolve takes over the tables nothing changed for (core/schema-cache/resolve/
 * reuse.ts) and must answer exactly what resolving everything again answers. The named cases pin
 * the dependencies one by one; the walk applies 300 random changes (metadata and catalog) and
 * compares every step with a resolve from scratch over unfrozen copies, which no memo serves.
 */
import { expect } from 'chai';
import type { CatalogTable, DatabaseCatalog } from '../../../core/db/catalog.js';
import { ScalarTypes } from '../../../core/db/scalar-types.js';
import { freezeDocument } from '../../../core/metadata/cow-draft.js';
import type { SourceMetadata, TableMetadata } from '../../../core/metadata/types.js';
import type { ResolvedSource } from '../../../core/schema-cache/model.js';
import { copyResolvedTable, resolveSource, type ResolvedSourceResult } from '../../../core/schema-cache/resolve/index.js';
import { POSTGRES_SCALAR_TYPES } from '../../../plugins/db/postgres/scalar-types.js';
import { catalog, table } from '../../helpers/catalog.js';
import { FakeConnection } from '../../helpers/fake-connection.js';

const scalarTypes = new ScalarTypes(POSTGRES_SCALAR_TYPES);
const connection = new FakeConnection({ 'public.color': [{ value: 'red' }, { value: 'blue' }] });
const source = (tables: TableMetadata[]): SourceMetadata => freezeDocument({ name: 'default', kind: 'postgres', tables, configuration: {} });
const entry = (name: string, extra: Partial<TableMetadata> = {}): TableMetadata => freezeDocument({ table: { schema: 'public', name }, ...extra });

const resolveAfter = (meta: SourceMetadata, cat: DatabaseCatalog, previous?: ResolvedSource): Promise<ResolvedSourceResult> =>
  resolveSource(meta, cat, connection, { scalarTypes, ...(previous ? { previous } : {}) });
/** A resolve no memo and no earlier resolve can serve: every entry a new, unfrozen object. */
const fromScratch = (meta: SourceMetadata, cat: DatabaseCatalog): Promise<ResolvedSourceResult> =>
  resolveSource(structuredClone(meta), structuredClone(cat), connection, { scalarTypes });

/** Whether a resolve reported anything about the table `key` (such a table is never taken over). */
const mentions = (r: ResolvedSourceResult, key: string): boolean =>
  r.inconsistencies.some((o) => o.name.endsWith(` in table ${key.slice('public.'.length)} in source default`) || o.name === `table ${key.slice('public.'.length)} in source default`);

/** What the schema generator and the inconsistency report read of a resolve, as plain JSON. */
function view(r: ResolvedSourceResult): unknown {
  const tables = [...r.source.tables.values()].map((t) => ({
    key: t.key,
    typeName: t.typeName,
    rootFields: t.rootFields,
    columns: t.columns.map((c) => [c.name, c.graphqlName, c.type, c.nullable, c.enumTable ?? null]),
    relationships: [...t.relationships],
    permissions: Object.fromEntries(Object.entries(t.permissions).map(([kind, byRole]) => [kind, [...(byRole as Map<string, unknown>)]])),
    enumValues: t.enumValues ?? null,
  }));
  return JSON.parse(JSON.stringify({ tables, inconsistencies: r.inconsistencies }));
}

const authorArticle = (authorColumns = ['id:int4', 'name', 'bio']): DatabaseCatalog =>
  catalog(
    table('author', { columns: authorColumns, pk: ['id'] }),
    table('article', { columns: ['id:int4', 'title', { name: 'author_id', type: 'int4', nullable: false }], pk: ['id'], fks: [{ columns: ['author_id'], ref: 'author', refColumns: ['id'] }] }),
    table('tag', { columns: ['id:int4', 'label'], pk: ['id'] }),
  );
const articleEntry = (filter: Record<string, unknown>) =>
  entry('article', {
    object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }],
    select_permissions: [{ role: 'user', permission: { columns: ['id', 'title'], filter } }],
  });

describe('schema cache: an incremental resolve takes over unchanged tables and answers as a full one', () => {
  it('takes over every table whose entry, catalog entry and reads are unchanged, as the same object', async () => {
    const cat = authorArticle();
    const author = entry('author');
    const article = articleEntry({ author: { name: { _eq: 'x' } } });
    const first = await resolveAfter(source([author, article, entry('tag')]), cat);
    const tag = entry('tag', { configuration: { custom_name: 'label_tag' } });
    const meta = source([author, article, tag]);
    const next = await resolveAfter(meta, cat, first.source);
    expect(next.source.tables.get('public.author')).to.equal(first.source.tables.get('public.author'));
    expect(next.source.tables.get('public.article')).to.equal(first.source.tables.get('public.article'));
    expect(next.source.tables.get('public.tag')).to.not.equal(first.source.tables.get('public.tag'));
    expect(next.source.tables.get('public.tag')!.typeName).to.equal('label_tag');
    expect(view(next)).to.deep.equal(view(await fromScratch(meta, cat)));
  });

  it('resolves a table again when a table its permission reads through a relationship changed', async () => {
    const article = articleEntry({ author: { name: { _eq: 'x' } } });
    const first = await resolveAfter(source([entry('author'), article]), authorArticle());
    // author loses the column article's filter compares: article's entry and catalog entry are the
    // same objects, but its permission no longer holds.
    const cat = authorArticle(['id:int4', 'bio']);
    cat.tables[1] = first.source.catalog.tables[1]!;
    const meta = source([entry('author'), article]);
    const next = await resolveAfter(meta, cat, first.source);
    expect(next.source.tables.get('public.article')).to.not.equal(first.source.tables.get('public.article'));
    expect(next.source.tables.get('public.article')!.permissions.select.has('user')).to.equal(false);
    expect(next.inconsistencies.map((o) => o.name)).to.deep.equal(['select_permission user in table article in source default']);
    expect(view(next)).to.deep.equal(view(await fromScratch(meta, cat)));
  });

  it('resolves a table again when the target of its foreign key starts or stops being tracked', async () => {
    const cat = authorArticle();
    const article = entry('article', { object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }] });
    const author = entry('author');
    const both = await resolveAfter(source([author, article]), cat);
    const alone = source([article]);
    const without = await resolveAfter(alone, cat, both.source);
    expect(without.source.tables.get('public.article')!.relationships.has('author')).to.equal(false);
    expect(without.inconsistencies).to.have.length(1);
    expect(view(without)).to.deep.equal(view(await fromScratch(alone, cat)));
    const again = source([article, author]);
    const back = await resolveAfter(again, cat, without.source);
    expect(back.source.tables.get('public.article')!.relationships.has('author')).to.equal(true);
    expect(view(back)).to.deep.equal(view(await fromScratch(again, cat)));
  });

  it('resolves everything again when a new entry earlier in the list takes a taken-over table’s names', async () => {
    const cat = authorArticle();
    const first = await resolveAfter(source([entry('author'), entry('article')]), cat);
    const meta = source([entry('tag', { configuration: { custom_name: 'author' } }), entry('author'), entry('article')]);
    const next = await resolveAfter(meta, cat, first.source);
    expect(next.source.tables.has('public.author')).to.equal(false);
    expect(next.inconsistencies.map((o) => o.name)).to.deep.equal(['table author in source default']);
    expect(view(next)).to.deep.equal(view(await fromScratch(meta, cat)));
  });

  it('takes over nothing when the source’s customization changed, nor a table that reported an inconsistency', async () => {
    const cat = authorArticle();
    const broken = entry('article', { select_permissions: [{ role: 'user', permission: { columns: ['nope'], filter: {} } }] });
    const meta = source([entry('author'), broken]);
    const first = await resolveAfter(meta, cat);
    const again = await resolveAfter(meta, cat, first.source);
    expect(again.source.tables.get('public.author')).to.equal(first.source.tables.get('public.author'));
    expect(again.source.tables.get('public.article')).to.not.equal(first.source.tables.get('public.article'));
    expect(again.inconsistencies).to.have.length(1);
    const prefixed = freezeDocument({ ...meta, customization: { type_names: { prefix: 'p_' } } });
    const renamed = await resolveAfter(prefixed, cat, again.source);
    expect(renamed.source.tables.get('public.author')).to.not.equal(again.source.tables.get('public.author'));
    expect(renamed.source.tables.get('public.author')!.typeName).to.equal('p_author');
  });

  it('hands a plugin a copy to derive into, leaving the shared table as resolved', async () => {
    const cat = authorArticle();
    const first = await resolveAfter(source([entry('author', { select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: {} } }] })]), cat);
    const shared = first.source.tables.get('public.author')!;
    const copy = copyResolvedTable(shared);
    copy.permissions.select.set('derived', copy.permissions.select.get('user')!);
    expect([...shared.permissions.select.keys()]).to.deep.equal(['user']);
    expect([...copy.permissions.select.keys()]).to.deep.equal(['user', 'derived']);
  });

  it('answers as a full resolve after each of 300 random changes to metadata and catalog', async function () {
    this.timeout(60_000);
    const walk = new RandomWalk(20261130);
    let previous = await resolveAfter(walk.meta(), walk.catalog());
    let takenOver = 0;
    let readAgain = 0;
    for (let step = 0; step < 300; step++) {
      const before = walk.snapshot();
      const change = walk.change();
      const meta = walk.meta();
      const cat = walk.catalog();
      const next = await resolveAfter(meta, cat, previous.source);
      expect(view(next), `step ${step}: ${change}`).to.deep.equal(view(await fromScratch(meta, cat)));
      for (const [key, t] of next.source.tables) {
        const was = previous.source.tables.get(key);
        if (was === t) takenOver++;
        else if (was && before.entries.get(key) === t.metadata && before.catalogs.get(key) === t.catalog && !mentions(previous, key)) readAgain++;
      }
      previous = next;
    }
    // The walk must exercise both sides: tables taken over, and unchanged tables read again because
    // a table they read changed.
    expect(takenOver).to.be.greaterThan(200);
    expect(readAgain).to.be.greaterThan(100);
  });
});

/**
 * Tables t0..t5 (each may reference an earlier one through `parent_id`) and an enum table `color`
 * that t4 and t5 reference through `color`; entries and catalog tables are replaced, never edited,
 * as the copy-on-write draft and the catalog refresh do.
 */
class RandomWalk {
  private seed: number;
  private readonly entries = new Map<string, TableMetadata>();
  private order: string[] = [];
  private readonly catalogs = new Map<string, CatalogTable>();
  private static readonly NAMES = ['t0', 't1', 't2', 't3', 't4', 't5'];

  constructor(seed: number) {
    this.seed = seed;
    for (const name of RandomWalk.NAMES) this.catalogs.set(name, this.tableCatalog(name, true));
    this.catalogs.set('color', table('color', { columns: ['value'], pk: ['value'] }));
    for (const name of ['t0', 't1', 't2', 't3']) this.track(name);
  }

  private random(): number {
    this.seed = (this.seed + 0x6d2b79f5) | 0;
    let t = Math.imul(this.seed ^ (this.seed >>> 15), 1 | this.seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  private tableCatalog(name: string, withName: boolean): CatalogTable {
    const index = RandomWalk.NAMES.indexOf(name);
    const parent = index > 0 ? RandomWalk.NAMES[index - 1] : undefined;
    return table(name, {
      columns: ['id:int4', ...(withName ? ['name'] : []), 'parent_id:int4', 'color'],
      pk: ['id'],
      fks: [
        ...(parent ? [{ columns: ['parent_id'], ref: parent, refColumns: ['id'] }] : []),
        ...(index >= 4 ? [{ columns: ['color'], ref: 'color', refColumns: ['value'] }] : []),
      ],
    });
  }

  /** Mostly filters that hold (an inconsistent table is never taken over), through what the entry defines. */
  private filter(parent: boolean, children: boolean): Record<string, unknown> {
    const roll = this.random();
    if (roll < 0.3) return {};
    if (roll < 0.5) return { id: { _gt: 1 } };
    if (roll < 0.65 && parent) return { parent: { name: { _eq: 'y' } } };
    if (roll < 0.75 && children) return { children: { name: { _like: '%a' } } };
    if (roll < 0.8 && parent) return { parent: { parent: { id: { _gt: 1 } } } };
    if (roll < 0.85) return { _exists: { _table: { schema: 'public', name: this.pick(RandomWalk.NAMES) }, _where: { name: { _eq: 'z' } } } };
    return { name: { _eq: 'x' } };
  }

  private tableEntry(name: string): TableMetadata {
    const index = RandomWalk.NAMES.indexOf(name);
    const child = RandomWalk.NAMES[index + 1];
    const parent = index > 0 && this.random() < 0.8;
    const children = child !== undefined && this.random() < 0.6;
    const roles = ['r1', 'r2'].filter(() => this.random() < 0.7);
    return entry(name, {
      ...(parent ? { object_relationships: [{ name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } }] } : {}),
      ...(children
        ? { array_relationships: [{ name: 'children', using: { foreign_key_constraint_on: { table: { schema: 'public', name: child }, column: 'parent_id' } } }] }
        : {}),
      ...(roles.length > 0
        ? { select_permissions: roles.map((role) => ({ role, permission: { columns: this.random() < 0.3 ? ['id', 'name'] : ['id'], filter: this.filter(parent, children) } })) }
        : {}),
      ...(this.random() < 0.05 ? { configuration: { custom_name: this.pick(['t0', 't1', 'other']) } } : {}),
    });
  }

  private track(name: string): void {
    this.entries.set(name, name === 'color' ? entry('color', { is_enum: this.random() < 0.7 }) : this.tableEntry(name));
    if (!this.order.includes(name)) this.order.push(name);
  }

  /** Applies one random change and says what it was. */
  change(): string {
    const tracked = this.order;
    const all = [...RandomWalk.NAMES, 'color'];
    const roll = this.random();
    if (roll < 0.45) {
      const name = this.pick(tracked.length > 0 ? tracked : all);
      this.track(name);
      return `rewrote the entry of ${name}`;
    }
    if (roll < 0.6) {
      // Untracking is rarer than tracking: most of the walk has most tables tracked.
      const name = this.pick(this.random() < 0.4 ? all : all.filter((n) => !tracked.includes(n)));
      if (name === undefined) return 'nothing';
      if (tracked.includes(name)) {
        this.order = tracked.filter((n) => n !== name);
        this.entries.delete(name);
        return `untracked ${name}`;
      }
      this.track(name);
      if (this.random() < 0.3) this.order = [name, ...this.order.filter((n) => n !== name)];
      return `tracked ${name}`;
    }
    if (roll < 0.8) {
      const name = this.pick(RandomWalk.NAMES.filter((n) => this.catalogs.has(n)));
      if (name === undefined) return 'nothing';
      const hasName = this.catalogs.get(name)!.columns.some((c) => c.name === 'name');
      this.catalogs.set(name, this.tableCatalog(name, !hasName));
      return `${hasName ? 'dropped' : 'added'} column name of ${name}`;
    }
    if (roll < 0.9) {
      const name = this.pick(RandomWalk.NAMES);
      if (this.catalogs.has(name)) {
        this.catalogs.delete(name);
        return `dropped table ${name}`;
      }
      this.catalogs.set(name, this.tableCatalog(name, true));
      return `created table ${name}`;
    }
    return 'nothing';
  }

  meta(): SourceMetadata {
    return source(this.order.map((name) => this.entries.get(name)!));
  }

  catalog(): DatabaseCatalog {
    return catalog(...[...this.catalogs.values()].sort((a, b) => a.name.localeCompare(b.name)));
  }

  snapshot(): { entries: Map<string, TableMetadata>; catalogs: Map<string, CatalogTable> } {
    const key = (name: string) => `public.${name}`;
    return {
      entries: new Map([...this.entries].map(([name, e]) => [key(name), e] as const)),
      catalogs: new Map([...this.catalogs].map(([name, c]) => [key(name), c] as const)),
    };
  }
}
