/**
 * `_entities(representations:)`: each representation `{__typename, <key fields>}` is answered by
 * that type's row through the role's view (its select filter applies: a row the role cannot see
 * is null), in representation order. The representations of one type are ONE statement: each key
 * column `= ANY` of the batch's values (parameters), rows matched back to representations by
 * their whole key in the engine. Statements are compiled once per plan and type, on first use.
 * Bad representations get the reference's messages (`validation-failed`).
 */
import { Kind, valueFromASTUntyped, type FieldNode } from 'graphql';
import {
  selectionForType,
  and,
  argumentsOf,
  bindParams,
  buildFields,
  fillJoins,
  joinShapeOfQuery,
  sessionVariablesOfQuery,
  validationError,
  EngineError,
  type BoolExpIR,
  type CompiledStatement,
  type ExternalContext,
  type FieldIR,
  type PlanContext,
  type RemoteFieldGroup,
  type RemoteFieldPart,
  type RootFieldIR,
  type SchemaBuildContext,
  type SourceConnection,
} from '../../../core/sdk/index.js';
import type { EntityView } from './entity-views.js';

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
const KEY_ALIAS = (i: number): string => `__svc_entity_key_${i}`;
const KEYS_VARIABLE = (i: number): string => `__svc_entity_keys_${i}`;

export interface EntitiesGroup extends RemoteFieldGroup {
  plan(field: FieldNode, ctx: PlanContext): EntitiesPart;
}

interface EntitiesPart extends RemoteFieldPart {
  run(ext: ExternalContext): Promise<string>;
}

/** One entity type as planned for one `_entities` selection: its IR, compiled when first needed. */
interface PlannedType {
  entity: EntityView;
  ir: RootFieldIR;
  /** Session variables the statement reads (the role's filter): required, as for any query. */
  sessionVariables: readonly string[];
  compiled?: { statement: CompiledStatement; connection: SourceConnection };
}

export function entitiesGroup(entities: ReadonlyMap<string, EntityView>, build: SchemaBuildContext): EntitiesGroup {
  const options = { stringifyNumericTypes: build.config.stringifyNumericTypes };
  const group: EntitiesGroup = {
    run: (parts, ext) => Promise.all(parts.map((p) => (p as EntitiesPart).run(ext))),
    plan(field, ctx) {
      const key = field.alias?.value ?? field.name.value;
      const argPath = `$.selectionSet.${key}.args.representations`;
      const types = new Map<string, PlannedType>();
      for (const [name, entity] of entities) {
        const fields = buildFields(entity.view, selectionForType(field.selectionSet, '_Entity', name, ctx.fragments), ctx, `$.selectionSet.${key}`);
        const ir = entityIR(entity, fields);
        types.set(name, { entity, ir, sessionVariables: sessionVariablesOfQuery(ir) });
      }
      const input = argumentsOf(field).get('representations');
      const node = input?.kind === 'ast' ? input.node : undefined;
      return {
        group,
        async run(ext) {
          const given = node === undefined ? undefined : node.kind === Kind.VARIABLE ? ext.variables[node.name.value] : valueFromASTUntyped(node, ext.variables);
          const reps = parseRepresentations(given, types, argPath);
          const answers: unknown[] = new Array(reps.length).fill(null);
          const byType = new Map<PlannedType, Array<{ index: number; key: unknown[] }>>();
          reps.forEach((r, index) => {
            const list = byType.get(r.type);
            if (list) list.push({ index, key: r.key });
            else byType.set(r.type, [{ index, key: r.key }]);
          });
          await Promise.all(
            [...byType].map(async ([type, wanted]) => {
              const rows = await fetchRows(type, wanted.map((w) => w.key), ext, build, options);
              for (const w of wanted) answers[w.index] = rows.get(tupleOf(w.key)) ?? null;
            }),
          );
          return JSON.stringify(answers);
        },
      };
    },
  };
  return group;
}

function entityIR(entity: EntityView, fields: FieldIR[]): RootFieldIR {
  const { view, key } = entity;
  const where: BoolExpIR[] = key.map((c, i) => ({
    kind: 'compare',
    lhs: { kind: 'column', name: c.column.name, type: c.column.type },
    op: '_in',
    rhs: { value: { kind: 'variable', name: KEYS_VARIABLE(i), path: [] }, dbType: c.column.type, array: true },
  }));
  return {
    kind: 'select',
    source: view.source,
    single: false,
    select: {
      from: view.ref,
      where: and(where),
      permissionFilter: view.permissionFilter(),
      orderBy: [],
      distinctOn: [],
      limit: null,
      offset: null,
      permissionLimit: null,
      fields: [...fields, ...key.map((c, i): FieldIR => ({ kind: 'column', alias: KEY_ALIAS(i), name: c.column.name, type: c.column.type }))],
    },
  };
}

const tupleOf = (values: readonly unknown[]): string => JSON.stringify(values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))));

/** The rows of one type for a batch of keys, by key tuple; one statement. */
async function fetchRows(
  type: PlannedType,
  keys: unknown[][],
  ext: ExternalContext,
  build: SchemaBuildContext,
  options: { stringifyNumericTypes: boolean },
): Promise<Map<string, Record<string, unknown>>> {
  for (const name of type.sessionVariables) {
    if (ext.session.variables[name] === undefined) throw new EngineError('not-found', `missing session variable: "${name}"`, { path: '$' });
  }
  if (!type.compiled) {
    const connection = build.cache.sources.get(type.entity.view.source)?.connection;
    if (!connection) throw validationError(`source ${JSON.stringify(type.entity.view.source)} is not available`, '$');
    type.compiled = { connection, statement: connection.compileQuery(type.ir, options) };
  }
  const { connection, statement } = type.compiled;
  const variables: Record<string, unknown> = { ...ext.variables };
  type.entity.key.forEach((_, i) => (variables[KEYS_VARIABLE(i)] = [...new Set(keys.map((k) => k[i]))]));
  const bound = bindParams(statement.params, variables, ext.session);
  const text = await connection.runQuery(statement, JSON.stringify(ext.session.variables), bound, ext.deadline !== undefined ? { deadline: ext.deadline } : undefined);
  const rows = JSON.parse(text) as Array<Record<string, unknown>>;
  const nested = joinShapeOfQuery(type.ir);
  if (nested) await fillJoins(rows, nested, ext);
  const out = new Map<string, Record<string, unknown>>();
  for (const row of rows) {
    const k = type.entity.key.map((_, i) => row[KEY_ALIAS(i)]);
    type.entity.key.forEach((_, i) => delete row[KEY_ALIAS(i)]);
    out.set(tupleOf(k), row);
  }
  return out;
}

interface Representation {
  type: PlannedType;
  key: unknown[];
}

/** Checks each representation as the reference's `_Any` parser does, with its messages. */
function parseRepresentations(given: unknown, types: ReadonlyMap<string, PlannedType>, path: string): Representation[] {
  if (!Array.isArray(given)) throw validationError('representations is expecting a list of objects only', path);
  return given.map((rep, i): Representation => {
    const at = `${path}[${i}]`;
    if (rep === null || typeof rep !== 'object' || Array.isArray(rep)) throw validationError('representations is expecting a list of objects only', at);
    const obj = rep as Record<string, unknown>;
    if (!('__typename' in obj)) throw validationError('__typename key not found', at);
    const typeName = obj['__typename'];
    if (typeof typeName !== 'string') throw validationError('__typename can only be a string value', at);
    if (!GRAPHQL_NAME.test(typeName)) throw validationError(`${typeName} is not a valid graphql name`, at);
    const type = types.get(typeName);
    if (!type) throw validationError(`${typeName} is not found in selection set or apollo federation is not enabled for the type`, at);
    const key = type.entity.key.map((c) => {
      const v = obj[c.field];
      if (v === undefined) throw validationError(`cannot find ${c.field} in _Any type`, at);
      if (v === null || typeof v === 'object') throw validationError(`expected a scalar value for ${c.field} in _Any type`, at);
      return v;
    });
    return { type, key };
  });
}

