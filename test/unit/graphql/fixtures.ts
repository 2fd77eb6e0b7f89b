/**
 * Hand-built resolved models for GraphQL schema and IR tests (no database): terse table specs
 * turned into ResolvedTable/ResolvedSource the way the schema cache would, a blog fixture
 * (author/article/comment + an enum table), and helpers to build a role schema and plan a query.
 */
import { Kind, parse, validate, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import type { CatalogColumn, CatalogTable, DatabaseCatalog } from '../../../core/db/catalog.js';
import type { SourceConnection } from '../../../core/db/contract.js';
import type {
  SelectPermission,
  SourceCustomization,
  TableConfiguration,
  TableMetadata,
} from '../../../core/metadata/types.js';
import type {
  ResolvedColumn,
  ResolvedRelationship,
  ResolvedSource,
  ResolvedTable,
  TableRootFieldNames,
} from '../../../core/schema-cache/model.js';
import type { SchemaCache } from '../../../core/schema-cache/cache.js';
import type { ServerConfig } from '../../../core/config/types.js';
import type { RootFieldIR } from '../../../core/graphql/ir.js';
import {
  emptySchemaDraft,
  type PlanContext,
  type RoleSchema,
  type RootFieldEntry,
  type SchemaBuildContext,
} from '../../../core/graphql/schema-draft.js';
import { addSourceToDraft, assembleRoleSchema } from '../../../core/graphql/schema/index.js';
import { ScalarTypes } from '../../../core/db/scalar-types.js';
import { POSTGRES_SCALAR_TYPES } from '../../../plugins/db/postgres/scalar-types.js';

/** The postgres kind's type facts, as the schema cache gives them to its sources. */
export const PG_SCALARS = new ScalarTypes(POSTGRES_SCALAR_TYPES);

export interface ColumnSpec {
  name: string;
  type: string;
  nullable?: boolean;
  description?: string;
  /** GraphQL name when it differs from the column name (column_config custom_name). */
  graphqlName?: string;
  enumTable?: string;
  elementType?: string;
  typeKind?: CatalogColumn['typeKind'];
}

export interface RelationshipSpec {
  name: string;
  kind: 'object' | 'array';
  target: string;
  mapping: Array<[string, string]>;
  comment?: string;
  required?: boolean;
}

export interface TableSpec {
  schema?: string;
  name: string;
  columns: ColumnSpec[];
  primaryKey?: string[];
  description?: string;
  identifier?: string;
  configuration?: TableConfiguration;
  relationships?: RelationshipSpec[];
  select?: Record<string, SelectPermission>;
  enumValues?: Array<{ value: string; description: string | null }>;
}

const camel = (s: string): string => s.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
const pascal = (s: string): string => {
  const c = camel(s);
  return c[0]!.toUpperCase() + c.slice(1);
};

function rootFields(id: string, custom: TableConfiguration['custom_root_fields'], c: SourceCustomization): TableRootFieldNames {
  const gql = c.naming_convention === 'graphql-default';
  const pre = c.root_fields?.prefix ?? '';
  const suf = c.root_fields?.suffix ?? '';
  const make = (key: keyof TableRootFieldNames, generated: string): string => {
    const base = custom?.[key] || (gql ? camel(generated) : generated);
    return `${pre}${base}${suf}`;
  };
  return {
    select: make('select', id),
    select_by_pk: make('select_by_pk', `${id}_by_pk`),
    select_aggregate: make('select_aggregate', `${id}_aggregate`),
    select_stream: make('select_stream', `${id}_stream`),
    insert: make('insert', `insert_${id}`),
    insert_one: make('insert_one', `insert_${id}_one`),
    update: make('update', `update_${id}`),
    update_by_pk: make('update_by_pk', `update_${id}_by_pk`),
    update_many: make('update_many', `update_${id}_many`),
    delete: make('delete', `delete_${id}`),
    delete_by_pk: make('delete_by_pk', `delete_${id}_by_pk`),
  };
}

export function makeTable(spec: TableSpec, customization: SourceCustomization = {}, source = 'default'): ResolvedTable {
  const schema = spec.schema ?? 'public';
  const gql = customization.naming_convention === 'graphql-default';
  const catalogColumns: CatalogColumn[] = spec.columns.map((c, i) => ({
    name: c.name,
    position: i + 1,
    type: c.type,
    ...(c.elementType ? { elementType: c.elementType } : {}),
    typeKind: c.typeKind ?? (c.type.startsWith('_') ? 'array' : 'base'),
    nullable: c.nullable ?? !(spec.primaryKey ?? []).includes(c.name),
    hasDefault: false,
    isIdentity: false,
    isGenerated: false,
    description: c.description ?? null,
  }));
  const catalog: CatalogTable = {
    schema,
    name: spec.name,
    kind: 'table',
    description: spec.description ?? null,
    columns: catalogColumns,
    primaryKey: spec.primaryKey ? { name: `${spec.name}_pkey`, columns: spec.primaryKey } : null,
    uniqueConstraints: [],
    foreignKeys: [],
    insertable: true,
    updatable: true,
    deletable: true,
  };
  const columns: ResolvedColumn[] = spec.columns.map((c, i) => ({
    name: c.name,
    graphqlName: c.graphqlName ?? (gql ? camel(c.name) : c.name),
    type: c.type,
    catalog: catalogColumns[i]!,
    nullable: catalogColumns[i]!.nullable,
    description: c.description ?? null,
    ...(c.enumTable ? { enumTable: c.enumTable } : {}),
  }));
  const identifier = spec.identifier ?? spec.configuration?.custom_name ?? (schema === 'public' ? spec.name : `${schema}_${spec.name}`);
  const relationships = new Map<string, ResolvedRelationship>(
    (spec.relationships ?? []).map((r) => [
      r.name,
      {
        name: r.name,
        kind: r.kind,
        target: r.target.includes('.') ? r.target : `public.${r.target}`,
        mapping: r.mapping,
        comment: r.comment ?? null,
        insertionOrder: r.kind === 'object' ? 'before_parent' : 'after_parent',
        required: r.required ?? false,
      },
    ]),
  );
  const metadata: TableMetadata = {
    table: { schema, name: spec.name },
    ...(spec.configuration ? { configuration: spec.configuration } : {}),
    ...(spec.enumValues ? { is_enum: true } : {}),
  };
  const typePre = customization.type_names?.prefix ?? '';
  const typeSuf = customization.type_names?.suffix ?? '';
  return {
    source,
    scalars: PG_SCALARS,
    table: { schema, name: spec.name },
    key: `${schema}.${spec.name}`,
    catalog,
    metadata,
    identifier,
    typeName: `${typePre}${gql ? pascal(identifier) : identifier}${typeSuf}`,
    columns,
    columnsByName: new Map(columns.map((c) => [c.name, c] as const)),
    columnsByGraphqlName: new Map(columns.map((c) => [c.graphqlName, c] as const)),
    relationships,
    rootFields: rootFields(identifier, spec.configuration?.custom_root_fields, customization),
    primaryKey: spec.primaryKey ?? null,
    description: spec.configuration?.comment ?? spec.description ?? null,
    isEnum: spec.enumValues !== undefined,
    ...(spec.enumValues ? { enumValues: spec.enumValues } : {}),
    permissions: {
      select: new Map(Object.entries(spec.select ?? {})),
      insert: new Map(),
      update: new Map(),
      delete: new Map(),
    },
  };
}

export function makeSource(name: string, specs: TableSpec[], customization: SourceCustomization = {}): ResolvedSource {
  const tables = specs.map((s) => makeTable(s, customization, name));
  const catalog: DatabaseCatalog = { tables: tables.map((t) => t.catalog), enums: [], functions: [], serverVersion: '15.0' };
  return {
    name,
    kind: 'postgres',
    metadata: { name, kind: 'postgres', tables: tables.map((t) => t.metadata), configuration: {}, customization },
    customization,
    catalog,
    connection: {} as unknown as SourceConnection,
    scalars: PG_SCALARS,
    tables: new Map(tables.map((t) => [t.key, t] as const)),
  };
}

/** `author(id serial primary key, name text)`: the reference's own example. */
export const authorSpec = (): TableSpec => ({
  name: 'author',
  columns: [
    { name: 'id', type: 'int4' },
    { name: 'name', type: 'text' },
  ],
  primaryKey: ['id'],
});

/**
 * The blog: author ← article (FK author_id, enum-table status, jsonb metadata, text[] tags,
 * custom column name, table and column comments) ← comment; article_status is an enum table.
 * Role `user`: some author/article columns, own articles only, capped at 10, article aggregates.
 * Role `anon`: author names only (no primary key, so no `author_by_pk`).
 */
export function blogSpecs(): TableSpec[] {
  return [
    {
      ...authorSpec(),
      relationships: [{ name: 'articles', kind: 'array', target: 'article', mapping: [['id', 'author_id']] }],
      select: {
        user: { columns: ['id', 'name'], filter: {} },
        anon: { columns: ['name'], filter: {} },
      },
    },
    {
      name: 'article',
      description: 'blog posts',
      columns: [
        { name: 'id', type: 'int4' },
        { name: 'title', type: 'text', nullable: false, graphqlName: 'headline', description: 'the title' },
        { name: 'body', type: 'text' },
        { name: 'author_id', type: 'int4', nullable: false },
        { name: 'status', type: 'text', enumTable: 'public.article_status' },
        { name: 'metadata', type: 'jsonb' },
        { name: 'tags', type: '_text', elementType: 'text' },
        { name: 'rating', type: 'numeric' },
        { name: 'published', type: 'bool' },
        { name: 'created_at', type: 'timestamptz' },
      ],
      primaryKey: ['id'],
      configuration: { column_config: { title: { custom_name: 'headline' } } },
      relationships: [
        { name: 'author', kind: 'object', target: 'author', mapping: [['author_id', 'id']], required: true },
        { name: 'comments', kind: 'array', target: 'comment', mapping: [['id', 'article_id']], comment: 'reader comments' },
      ],
      select: {
        user: {
          columns: ['id', 'title', 'author_id', 'status', 'rating', 'published'],
          filter: { author_id: { _eq: 'X-Svc-User-Id' } },
          limit: 10,
          allow_aggregations: true,
        },
      },
    },
    {
      name: 'comment',
      columns: [
        { name: 'id', type: 'int8' },
        { name: 'article_id', type: 'int4', nullable: false },
        { name: 'text', type: 'text' },
      ],
      primaryKey: ['id'],
      relationships: [{ name: 'article', kind: 'object', target: 'article', mapping: [['article_id', 'id']], required: true }],
    },
    {
      name: 'article_status',
      columns: [
        { name: 'value', type: 'text' },
        { name: 'comment', type: 'text' },
      ],
      primaryKey: ['value'],
      enumValues: [
        { value: 'draft', description: null },
        { value: 'published', description: 'visible to readers' },
      ],
    },
  ];
}

export const blogSource = (customization: SourceCustomization = {}): ResolvedSource =>
  makeSource('default', blogSpecs(), customization);

export function buildContext(role: string): SchemaBuildContext {
  return { role, cache: {} as unknown as SchemaCache, config: { experimentalFeatures: [] } as unknown as ServerConfig };
}

/** A role schema over the given sources, the way the schema cache assembles one. */
export function roleSchema(sources: ResolvedSource[], role = 'admin'): RoleSchema {
  let draft = emptySchemaDraft();
  for (const s of sources) draft = addSourceToDraft(draft, s, buildContext(role));
  return assembleRoleSchema(draft, role);
}

export interface PlannedQuery {
  /** Response key → IR of each database root field. */
  fields: Map<string, RootFieldIR>;
  /** Names of the variables read through `readVariable`, in order. */
  reads: string[];
}

/** Parse, validate and plan a query as the executor will: one `buildIR` per root field. */
export function planQuery(rs: RoleSchema, query: string, variables: Record<string, unknown> = {}): PlannedQuery {
  const doc: DocumentNode = parse(query);
  const errors = validate(rs.schema, doc);
  if (errors.length) throw new Error(`invalid query: ${errors.map((e) => e.message).join('; ')}`);
  const op = doc.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const reads: string[] = [];
  const declared = new Map((op.variableDefinitions ?? []).map((v) => [v.variable.name.value, v] as const));
  const ctx: PlanContext = {
    schema: rs.schema,
    fragments,
    role: rs.role,
    readVariable: (name) => {
      reads.push(name);
      return variables[name];
    },
    hasVariable: (name) => declared.has(name),
    variableType: (name) => {
      const d = declared.get(name);
      return d ? printType(d.type) : undefined;
    },
  };
  const fields = new Map<string, RootFieldIR>();
  const parent = op.operation === 'subscription' ? rs.schema.getSubscriptionType()! : rs.schema.getQueryType()!;
  const roots = op.operation === 'subscription' ? rs.roots.subscription : rs.roots.query;
  const visit = (selections: OperationDefinitionNode['selectionSet']['selections'], entries: ReadonlyMap<string, RootFieldEntry>): void => {
    for (const sel of selections) {
      if (sel.kind !== Kind.FIELD || sel.name.value === '__typename') continue;
      const entry = entries.get(sel.name.value);
      if (!entry) throw new Error(`no root field ${sel.name.value}`);
      if (entry.planner.kind === 'namespace') visit(sel.selectionSet?.selections ?? [], entry.planner.fields);
      else if (entry.planner.kind === 'db') fields.set(sel.alias?.value ?? sel.name.value, entry.planner.buildIR(sel, parent, ctx));
    }
  };
  visit(op.selectionSet.selections, roots);
  return { fields, reads };
}

type TypeNodeLike = { kind: string; type?: TypeNodeLike; name?: { value: string } };
function printType(t: TypeNodeLike): string {
  if (t.kind === Kind.NON_NULL_TYPE) return `${printType(t.type!)}!`;
  if (t.kind === Kind.LIST_TYPE) return `[${printType(t.type!)}]`;
  return t.name!.value;
}
