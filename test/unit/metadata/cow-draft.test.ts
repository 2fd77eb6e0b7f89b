import { expect } from 'chai';
import { freezeDocument, isMetadataDraft, MetadataDraft } from '../../../core/metadata/cow-draft.js';
import type { MetadataDocument, TableMetadata } from '../../../core/metadata/types.js';

function documentOf(tables: number): MetadataDocument {
  return {
    version: 3,
    sources: [
      {
        name: 'default',
        kind: 'postgres',
        configuration: { connection_info: { database_url: 'postgres://x' } },
        tables: Array.from({ length: tables }, (_, i) => ({
          table: { schema: 'public', name: `t${i}` },
          select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: {} } }],
        })),
      },
    ],
  } as MetadataDocument;
}

describe('metadata copy-on-write drafts', () => {
  it('a snapshot document is frozen: writing into it throws', () => {
    const doc = freezeDocument(documentOf(2));
    expect(() => {
      (doc.sources[0]!.tables[0] as TableMetadata).is_enum = true;
    }).to.throw(TypeError);
    expect(() => doc.sources[0]!.tables.push({ table: { schema: 'public', name: 'x' } })).to.throw(TypeError);
    expect(() => {
      (doc.sources[0]!.tables[1]!.select_permissions![0]!.permission as { columns: string[] }).columns.push('name');
    }).to.throw(TypeError);
  });

  it('a write copies only the entries on its path and shares every other one', () => {
    const base = documentOf(5);
    const draft = new MetadataDraft(base);
    const source = draft.document.sources[0]!;
    const t2 = source.tables.find((t) => t.table.name === 't2')!;
    t2.select_permissions!.push({ role: 'editor', permission: { columns: ['id'], filter: {} } });
    const next = draft.current();
    expect(next).to.not.equal(base);
    expect(next.sources[0]).to.not.equal(base.sources[0]);
    expect(next.sources[0]!.tables[2]).to.not.equal(base.sources[0]!.tables[2]);
    for (const i of [0, 1, 3, 4]) expect(next.sources[0]!.tables[i]).to.equal(base.sources[0]!.tables[i]);
    expect(next.sources[0]!.tables[2]!.select_permissions!.map((p) => p.role)).to.deep.equal(['user', 'editor']);
    // The base is untouched and the result is frozen too.
    expect(base.sources[0]!.tables[2]!.select_permissions).to.have.length(1);
    expect(Object.isFrozen(next.sources[0]!.tables[2]!.select_permissions![1])).to.equal(true);
    expect(isMetadataDraft(next)).to.equal(false);
  });

  it('reading alone changes nothing: the draft answers its base', () => {
    const base = documentOf(3);
    const draft = new MetadataDraft(base);
    expect(draft.document.sources[0]!.tables.map((t) => t.table.name)).to.deep.equal(['t0', 't1', 't2']);
    expect(JSON.stringify(draft.document)).to.equal(JSON.stringify(base));
    expect(draft.current()).to.equal(base);
  });

  it('drafts keep their identity, so lookups by identity work', () => {
    const draft = new MetadataDraft(documentOf(3));
    const tables = draft.document.sources[0]!.tables;
    const t1 = tables.find((t) => t.table.name === 't1')!;
    expect(tables.indexOf(t1)).to.equal(1);
    expect(tables[1]).to.equal(t1);
    expect(Array.isArray(tables)).to.equal(true);
    expect({ ...t1 }).to.deep.equal({ table: { schema: 'public', name: 't1' }, select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: {} } }] });
  });

  it('removing, replacing and moving entries give the same document as the same edits on a plain copy', () => {
    const plain = structuredClone(documentOf(6));
    const draft = new MetadataDraft(documentOf(6));
    for (const doc of [plain, draft.document]) {
      const source = doc.sources[0]!;
      source.tables.splice(1, 1);
      source.tables = source.tables.filter((t) => t.table.name !== 't4');
      const moved = source.tables.shift()!;
      source.tables.push(moved);
      moved.configuration = { custom_name: 'first' };
      delete source.tables[0]!.select_permissions;
      doc.actions = [{ name: 'a', definition: { handler: 'http://h' } }] as MetadataDocument['actions'];
    }
    expect(JSON.stringify(draft.current())).to.equal(JSON.stringify(plain));
  });

  it('a value a handler put in and changes later without the draft is still seen', () => {
    const draft = new MetadataDraft(documentOf(2));
    const entry = { role: 'late', permission: { columns: ['id'], filter: {} } };
    draft.document.sources[0]!.tables[0]!.select_permissions!.push(entry);
    const first = draft.current();
    expect(draft.current()).to.equal(first);
    entry.permission.columns.push('name');
    const second = draft.current();
    expect(second).to.not.equal(first);
    expect(second.sources[0]!.tables[0]!.select_permissions![1]!.permission).to.deep.equal({ columns: ['id', 'name'], filter: {} });
  });

  it('the draft stays writable after a frozen copy was taken, without changing that copy', () => {
    const draft = new MetadataDraft(documentOf(2));
    const t0 = draft.document.sources[0]!.tables[0]!;
    t0.is_enum = true;
    const first = draft.current();
    t0.is_enum = false;
    expect(first.sources[0]!.tables[0]!.is_enum).to.equal(true);
    expect(draft.current().sources[0]!.tables[0]!.is_enum).to.equal(false);
  });

  it('replacing the whole document freezes the new one and drafts it', () => {
    const draft = new MetadataDraft(documentOf(1));
    const replacement = documentOf(2);
    draft.replace(replacement);
    expect(Object.isFrozen(replacement.sources[0]!.tables[1])).to.equal(true);
    expect(draft.current()).to.equal(replacement);
    draft.document.sources[0]!.tables.pop();
    expect(draft.current().sources[0]!.tables).to.have.length(1);
  });

  it('replacing the document with one built from parts of the draft keeps those parts', () => {
    const base = documentOf(3);
    const draft = new MetadataDraft(base);
    const doc = draft.document;
    draft.replace({ ...doc, sources: [{ ...doc.sources[0]!, tables: doc.sources[0]!.tables.slice(1) }] });
    const next = draft.current();
    expect(next.sources[0]!.tables.map((t) => t.table.name)).to.deep.equal(['t1', 't2']);
    expect(next.sources[0]!.tables[0]).to.equal(base.sources[0]!.tables[1]);
    expect(isMetadataDraft(next.sources[0])).to.equal(false);
    expect(Object.isFrozen(next.sources[0])).to.equal(true);
  });
});
