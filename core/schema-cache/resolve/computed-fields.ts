/**
 * A table's computed fields, resolved with the reference engine's checks and messages
 * (`buildComputedFieldInfo`, then the field-name conflicts of `addNonColumnFields`): one
 * non-VOLATILE function whose table argument (the first, or `table_argument`) is the table's row
 * type, returning a base type or rows of a tracked table, with a `json`/`jsonb` session argument
 * if one is named; its name must not be taken by a column or relationship. Failures become
 * inconsistent objects `computed_field <name> in table <table> in source <source>`.
 */
import type { CatalogFunction } from '../../db/catalog.js';
import { tableKey } from '../../db/catalog.js';
import type { ComputedFieldMetadata, InconsistentObject, QualifiedFunction, QualifiedTable, SourceCustomization } from '../../metadata/types.js';
import { qualifiedTableName } from '../../metadata/types.js';
import { toQualifiedTable } from '../../metadata/args.js';
import type { ResolvedComputedField, ResolvedFunctionArg, ResolvedTable } from '../model.js';
import { functionArgs, isJsonType, quotedFunction, reasonMessage, singleFunction, typeDisplayName } from './function-common.js';
import { isGraphQLName } from './graphql-name.js';
import { inTableContext, quote, quoteTable, REASON_PREFIX, ResolveError } from './inconsistency.js';
import { tableTypeName, type NamingConvention } from './naming.js';

export const computedFieldObjectName = (source: string, table: QualifiedTable, name: string): string =>
  `computed_field ${name} in table ${qualifiedTableName(table)} in source ${source}`;

function inconsistency(source: string, t: ResolvedTable, cf: ComputedFieldMetadata, message: string): InconsistentObject {
  return {
    type: 'computed_field',
    name: computedFieldObjectName(source, t.table, cf.name),
    definition: {
      source,
      table: { schema: t.table.schema, name: t.table.name },
      name: cf.name,
      definition: cf.definition,
      comment: cf.comment ?? null,
    },
    reason: REASON_PREFIX + message,
  };
}

export interface ComputedFieldEnv {
  source: string;
  customization: SourceCustomization;
  naming: NamingConvention;
  functions: ReadonlyMap<string, CatalogFunction[]>;
  /** Keys of the serving tables, which table-returning functions must return. */
  tables: ReadonlySet<string>;
  /** The kind maps columns to the function's arguments (`argument_mapping`, `return_table`). */
  mapsColumns?: boolean;
}

/** Resolves `t`'s computed fields into `t.computedFields`; returns the ones that failed. */
export function resolveComputedFields(env: ComputedFieldEnv, t: ResolvedTable): InconsistentObject[] {
  const out: InconsistentObject[] = [];
  const resolved = new Map<string, ResolvedComputedField>();
  for (const cf of t.metadata.computed_fields ?? []) {
    const fail = (message: string) => out.push(inconsistency(env.source, t, cf, message));
    if (resolved.has(cf.name)) {
      fail(`conflicting definitions for field ${quote(cf.name)}`);
      continue;
    }
    let field: ResolvedComputedField;
    try {
      field = resolveOne(env, t, cf);
    } catch (e) {
      if (!(e instanceof ResolveError)) throw e;
      fail(inTableContext(t.table, `in computed field ${quote(cf.name)}: ${e.message}`));
      continue;
    }
    const conflict = nameConflict(t, cf.name);
    if (conflict) {
      fail(conflict);
      continue;
    }
    resolved.set(cf.name, field);
  }
  // Set even when empty: permissions then see that a listed field failed to resolve.
  if ((t.metadata.computed_fields ?? []).length > 0) t.computedFields = resolved;
  return out;
}

function nameConflict(t: ResolvedTable, name: string): string | null {
  if (t.relationships.has(name)) return `conflicting definitions for field ${quote(name)}`;
  const byGraphql = t.columnsByGraphqlName.get(name);
  // The reference engine's wording, whatever the source's kind.
  if (byGraphql && byGraphql.name !== name) return `field definition conflicts with custom field name for postgres column ${quote(byGraphql.name)}`;
  if (t.columnsByName.has(name)) return 'field definition conflicts with postgres column';
  return null;
}

/** The function a definition names; a name that is not one is reported like a missing function. */
function definitionFunction(cf: ComputedFieldMetadata): QualifiedFunction {
  const fn = toQualifiedTable(cf.definition?.function);
  if (!fn) throw new ResolveError(`no such function exists: ${JSON.stringify(cf.definition?.function ?? null)}`, 'not-exists');
  return fn;
}

function resolveOne(env: ComputedFieldEnv, t: ResolvedTable, cf: ComputedFieldMetadata): ResolvedComputedField {
  if (env.mapsColumns) return resolveMapped(env, t, cf);
  const fn = definitionFunction(cf);
  const catalog = singleFunction(env.functions.get(tableKey(fn)), fn);
  const qf = quotedFunction(fn);
  const reasons: string[] = [];
  const refuse = (reason: string): never => {
    reasons.push(reason);
    throw cannotAdd(t, cf.name, reasons);
  };
  if (!isGraphQLName(cf.name)) reasons.push(`${quote(cf.name)} is not valid GraphQL name`);
  if (catalog.volatility === 'volatile') reasons.push(`the function ${qf} is of type VOLATILE; cannot be added as a computed field`);

  let returns: ResolvedComputedField['returns'];
  if (catalog.returnsTable) {
    const key = tableKey(catalog.returnsTable);
    if (!env.tables.has(key)) {
      reasons.push(`the function ${qf} returning set of table ${quote(qualifiedTableName(catalog.returnsTable))} is not tracked or not found in database`);
    }
    returns = { kind: 'table', table: key };
  } else {
    const kind = catalog.returnTypeKind;
    if (kind !== undefined && kind !== 'base' && kind !== 'array') {
      reasons.push(`the function ${qf} returning type ${catalog.returnType} is not a BASE type`);
    }
    returns = { kind: 'scalar', type: catalog.returnType, ...(kind ? { typeKind: kind } : {}) };
  }

  const { table_argument: tableArg, session_argument: sessionArg } = cf.definition ?? { function: '' };
  const args: ResolvedFunctionArg[] = functionArgs(catalog);
  let rowIndex = 0;
  if (tableArg !== undefined && tableArg !== null) {
    rowIndex = args.findIndex((a) => a.name === tableArg);
    if (rowIndex < 0) refuse(`${quote(tableArg)} is not an input argument of the function ${qf}`);
    checkRowType(t, args[rowIndex]!, `${quote(tableArg)} argument of the function ${qf}`, reasons);
  } else if (args.length === 0) {
    reasons.push(`the function ${qf} has no input arguments`);
    rowIndex = -1;
  } else {
    checkRowType(t, args[0]!, `first argument of the function ${qf}`, reasons);
  }
  let sessionIndex = -1;
  if (sessionArg !== undefined && sessionArg !== null) {
    sessionIndex = args.findIndex((a) => a.name === sessionArg);
    if (sessionIndex < 0) refuse(`${quote(sessionArg)} is not an input argument of the function ${qf}`);
    if (!isJsonType(args[sessionIndex]!.type)) reasons.push(`${quote(sessionArg)} argument of the function ${qf} is not of type JSON`);
  }
  if (reasons.length > 0) throw cannotAdd(t, cf.name, reasons);

  // The client's arguments are numbered without the row and session ones.
  const implicit = new Set([rowIndex, sessionIndex].filter((i) => i >= 0));
  const named = functionArgs(catalog, implicit);
  named[rowIndex]!.role = 'row';
  if (sessionIndex >= 0) named[sessionIndex]!.role = 'session';
  return {
    name: cf.name,
    table: t.key,
    function: fn,
    catalog,
    metadata: cf,
    returns,
    args: named,
    argsTypeName: tableTypeName(`${cf.name}_${t.identifier}_args`, env.customization, env.naming),
    description: describe(cf, catalog, fn),
  };
}

/**
 * The warehouse kind's form: a table-valued function whose arguments named in `argument_mapping`
 * take the row's columns, the others coming from the client's `args`; its rows are those of
 * `return_table` (else the table the catalog says it returns), which must be tracked.
 */
function resolveMapped(env: ComputedFieldEnv, t: ResolvedTable, cf: ComputedFieldMetadata): ResolvedComputedField {
  const fn = definitionFunction(cf);
  const catalog = singleFunction(env.functions.get(tableKey(fn)), fn);
  const qf = quotedFunction(fn);
  const reasons: string[] = [];
  if (!isGraphQLName(cf.name)) reasons.push(`${quote(cf.name)} is not valid GraphQL name`);
  const mapping = cf.definition?.argument_mapping;
  if (mapping === undefined) throw cannotAdd(t, cf.name, ['"argument_mapping" is required for this kind']);
  const args = functionArgs(catalog);
  for (const [argument, column] of Object.entries(mapping)) {
    const arg = args.find((a) => a.name === argument);
    if (!arg) reasons.push(`${quote(argument)} is not an input argument of the function ${qf}`);
    else if (!t.columnsByName.has(column)) reasons.push(`the column ${quote(column)} mapped to argument ${quote(argument)} does not exist in table ${quoteTable(t.table)}`);
    else {
      arg.role = 'column';
      arg.column = column;
    }
  }
  const given = cf.definition?.return_table === undefined ? null : toQualifiedTable(cf.definition.return_table);
  const returnsTable = given ?? catalog.returnsTable;
  if (!catalog.returnsSet) reasons.push(`the function ${qf} is not a table-valued function`);
  if (!returnsTable) reasons.push(`the function ${qf} returns rows of no known table; give "return_table"`);
  else if (!env.tables.has(tableKey(returnsTable))) reasons.push(`the return table ${quote(qualifiedTableName(returnsTable))} is not tracked or not found in database`);
  if (reasons.length > 0) throw cannotAdd(t, cf.name, reasons);
  // The client's `args` hold the arguments no column feeds, numbered as the function lists them.
  const implicit = new Set(args.flatMap((a, i) => (a.role === 'column' ? [i] : [])));
  const named = functionArgs(catalog, implicit).map((a, i) => ({ ...a, ...(args[i]!.role === 'column' ? { role: 'column' as const, column: args[i]!.column! } : {}) }));
  return {
    name: cf.name,
    table: t.key,
    function: fn,
    catalog,
    metadata: cf,
    returns: { kind: 'table', table: tableKey(returnsTable!) },
    args: named,
    argsTypeName: tableTypeName(`${cf.name}_${t.identifier}_args`, env.customization, env.naming),
    description: describe(cf, catalog, fn),
  };
}

function checkRowType(t: ResolvedTable, arg: ResolvedFunctionArg, what: string, reasons: string[]): void {
  if (arg.typeKind !== undefined && arg.typeKind !== 'composite') reasons.push(`${what} is not COMPOSITE type`);
  const sameTable = arg.type === t.table.name && (arg.typeSchema ?? t.table.schema) === t.table.schema;
  if (!sameTable) reasons.push(`${what} of type ${quote(typeDisplayName(arg, t.scalars))} is not the table to which the computed field is being added`);
}

function cannotAdd(t: ResolvedTable, name: string, reasons: readonly string[]): ResolveError {
  return new ResolveError(`the computed field ${quote(name)} cannot be added to table ${quoteTable(t.table)} ${reasonMessage(reasons)}`, 'not-supported');
}

/** A given comment wins (an empty one means none); absent, the function's comment or a generated one. */
function describe(cf: ComputedFieldMetadata, catalog: CatalogFunction, fn: QualifiedFunction): string | null {
  if (cf.comment !== undefined && cf.comment !== null) return cf.comment === '' ? null : cf.comment;
  return catalog.description ?? `A computed field, executes function ${quotedFunction(fn)}`;
}
