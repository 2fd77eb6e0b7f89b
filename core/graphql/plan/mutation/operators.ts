/**
 * The update operators (`_set`, `_inc`, and the jsonb ones), in the reference engine's order and
 * wording: which columns each applies to, what type its values have, and its descriptions. The
 * schema generator and the IR builder both read this table, so they cannot disagree.
 */
import type { UpdateOperator } from '../../ir-mutation.js';
import type { ColumnView } from '../view.js';

export interface UpdateOperatorSpec {
  op: UpdateOperator;
  /** Whether the operator can change this column. */
  applies(c: ColumnView): boolean;
  /** Database type of a value, `array` for `_delete_at_path`'s list of path steps. */
  valueType(c: ColumnView): { dbType: string; graphqlType: string; array?: boolean };
  /** Argument description; `null` means the type description is used (jsonb operators). */
  argDescription: string | null;
  typeDescription(quotedTable: string): string;
}

const isJsonb = (c: ColumnView): boolean => c.info.jsonb;
const ownType = (c: ColumnView): { dbType: string; graphqlType: string } => ({ dbType: c.column.type, graphqlType: c.graphqlType });
const jsonbDescription = (text: string) => (): string => text;

export const UPDATE_OPERATORS: readonly UpdateOperatorSpec[] = [
  {
    op: '_set',
    applies: () => true,
    valueType: ownType,
    argDescription: 'sets the columns of the filtered rows to the given values',
    typeDescription: (t) => `input type for updating data in table ${t}`,
  },
  {
    op: '_inc',
    applies: (c) => c.info.numeric && !c.enumValues,
    valueType: ownType,
    argDescription: 'increments the numeric columns with given value of the filtered values',
    typeDescription: (t) => `input type for incrementing numeric columns in table ${t}`,
  },
  {
    op: '_append',
    applies: isJsonb,
    valueType: () => ({ dbType: 'jsonb', graphqlType: 'jsonb' }),
    argDescription: null,
    typeDescription: jsonbDescription('append existing jsonb value of filtered columns with new jsonb value'),
  },
  {
    op: '_prepend',
    applies: isJsonb,
    valueType: () => ({ dbType: 'jsonb', graphqlType: 'jsonb' }),
    argDescription: null,
    typeDescription: jsonbDescription('prepend existing jsonb value of filtered columns with new jsonb value'),
  },
  {
    op: '_delete_key',
    applies: isJsonb,
    valueType: () => ({ dbType: 'text', graphqlType: 'String' }),
    argDescription: null,
    typeDescription: jsonbDescription(
      'delete key/value pair or string element. key/value pairs are matched based on their key value',
    ),
  },
  {
    op: '_delete_elem',
    applies: isJsonb,
    valueType: () => ({ dbType: 'int4', graphqlType: 'Int' }),
    argDescription: null,
    typeDescription: jsonbDescription(
      'delete the array element with specified index (negative integers count from the end). throws an error if top level container is not an array',
    ),
  },
  {
    op: '_delete_at_path',
    applies: isJsonb,
    valueType: () => ({ dbType: 'text', graphqlType: 'String', array: true }),
    argDescription: null,
    typeDescription: jsonbDescription(
      'delete the field or element with specified path (for JSON arrays, negative integers count from the end)',
    ),
  },
];

/** The columns an operator applies to, among those the role may update. */
export const operatorColumns = (spec: UpdateOperatorSpec, columns: readonly ColumnView[]): ColumnView[] =>
  columns.filter((c) => spec.applies(c));
