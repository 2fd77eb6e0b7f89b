/**
 * Every generated name of a source's schema, under its customization: the naming convention
 * (`svc-default` keeps snake_case; `graphql-default` gives PascalCase types, camelCase fields and
 * arguments, UPPER_CASE enum values) and the type-name prefix/suffix.
 *
 * Names are built from snake_case parts so one rule covers both conventions. The type-name
 * prefix/suffix applies to the types generated for the source's tables, not to the scalar
 * comparison types and `order_by`, which every source shares (as in the reference engine).
 */
import type { SourceCustomization } from '../../metadata/types.js';
import type { ResolvedColumn, ResolvedTable, TableRootFieldNames } from '../../schema-cache/model.js';

export type NamingConvention = 'svc-default' | 'graphql-default';

export function namingConventionOf(c: SourceCustomization | undefined): NamingConvention {
  return c?.naming_convention === 'graphql-default' ? 'graphql-default' : 'svc-default';
}

const capitalize = (w: string): string => (w ? w[0]!.toUpperCase() + w.slice(1) : w);

/** Split into words, keeping leading underscores (operators like `_is_null`). */
function words(name: string): { lead: string; parts: string[] } {
  const lead = /^_*/.exec(name)![0];
  return { lead, parts: name.slice(lead.length).split('_').filter((p) => p !== '') };
}

export const toPascal = (name: string): string => {
  const { lead, parts } = words(name);
  return lead + parts.map(capitalize).join('');
};

export const toCamel = (name: string): string => {
  const { lead, parts } = words(name);
  return lead + parts.map((p, i) => (i === 0 ? p : capitalize(p))).join('');
};

/** One Naming per customization object (a snapshot's source keeps its object), so memos can key on it. */
const namings = new WeakMap<SourceCustomization, Naming>();
let plainNaming: Naming | undefined;

export function namingOf(customization: SourceCustomization | undefined): Naming {
  if (customization === undefined) return (plainNaming ??= new Naming(undefined));
  let naming = namings.get(customization);
  if (!naming) namings.set(customization, (naming = new Naming(customization)));
  return naming;
}

export class Naming {
  readonly convention: NamingConvention;
  private readonly typePrefix: string;
  private readonly typeSuffix: string;

  constructor(customization: SourceCustomization | undefined) {
    this.convention = namingConventionOf(customization);
    this.typePrefix = customization?.type_names?.prefix ?? '';
    this.typeSuffix = customization?.type_names?.suffix ?? '';
  }

  private get graphqlCase(): boolean {
    return this.convention === 'graphql-default';
  }

  /** A type generated for this source (gets the type-name prefix/suffix). */
  type(snake: string): string {
    return this.typePrefix + this.sharedType(snake) + this.typeSuffix;
  }

  /** A type shared by every source (scalar comparison types, `order_by`). */
  sharedType(snake: string): string {
    return this.graphqlCase ? toPascal(snake) : snake;
  }

  /** A generated field, argument or operator name. */
  field(snake: string): string {
    return this.graphqlCase ? toCamel(snake) : snake;
  }

  /** A generated enum value (`asc`, enum-table values). */
  enumValue(value: string): string {
    return this.graphqlCase ? value.toUpperCase() : value;
  }

  /**
   * Whether enum-table values are upper-cased: then a column referencing an enum table answers its
   * values upper-cased too (the GraphQL enum value), as the reference does under graphql-default.
   */
  get upperCaseEnumValues(): boolean {
    return this.graphqlCase;
  }

  /** A column's field name: the schema cache resolved it (custom name, else by convention). */
  columnField(_table: ResolvedTable, column: ResolvedColumn): string {
    return column.graphqlName;
  }

  /** Relationship fields keep the relationship's name, as the schema cache checks them against columns. */
  relationshipField(name: string): string {
    return name;
  }

  /** Root field names, as the schema cache resolved them (custom names, convention, prefix/suffix). */
  rootFields(table: ResolvedTable): Pick<TableRootFieldNames, 'select' | 'select_by_pk' | 'select_aggregate'> {
    return table.rootFields;
  }
}

/** The type names of one table, in one source's naming. */
export interface TableTypeNames {
  object: string;
  boolExp: string;
  orderBy: string;
  selectColumn: string;
  aggregate: string;
  aggregateFields: string;
  aggregateOrderBy: string;
  aggregateBoolExp: string;
  /** `<t>_<op>_fields`, e.g. `author_avg_fields`. */
  opFields(op: string): string;
  /** `<t>_<op>_order_by`. */
  opOrderBy(op: string): string;
  /** `<t>_aggregate_bool_exp_<fn>`. */
  aggregateBoolExpFn(fn: string): string;
  /** The enum of a boolean aggregate predicate's argument columns. */
  aggregateBoolExpFnColumns(fn: string): string;
  /** `<t>_enum`, for enum tables. */
  enumType: string;
}

export function tableTypeNames(naming: Naming, identifier: string): TableTypeNames {
  const t = (suffix: string): string => naming.type(`${identifier}${suffix}`);
  return {
    object: t(''),
    boolExp: t('_bool_exp'),
    orderBy: t('_order_by'),
    selectColumn: t('_select_column'),
    aggregate: t('_aggregate'),
    aggregateFields: t('_aggregate_fields'),
    aggregateOrderBy: t('_aggregate_order_by'),
    aggregateBoolExp: t('_aggregate_bool_exp'),
    opFields: (op) => t(`_${op}_fields`),
    opOrderBy: (op) => t(`_${op}_order_by`),
    aggregateBoolExpFn: (fn) => t(`_aggregate_bool_exp_${fn}`),
    aggregateBoolExpFnColumns: (fn) =>
      naming.type(`${identifier}_select_column_${identifier}_aggregate_bool_exp_${fn}_arguments_columns`),
    enumType: t('_enum'),
  };
}
