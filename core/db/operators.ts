/**
 * Comparison operators a database kind contributes for its own types (PostgreSQL's PostGIS
 * `_st_*` and ltree `_ancestor`, ...). The core never knows them by name: it adds each one to the
 * type's `<scalar>_comparison_exp` (GraphQL `where` and permission filters alike), reads its value
 * as the spec says, and hands the kind a `kindOperator` boolean expression to compile.
 */

/** One named value of an operator whose input is an object (`{distance, from}`). */
export interface KindOperatorField {
  name: string;
  /** Database type the value is cast to; `array`: a list of it. */
  dbType: string;
  /** GraphQL scalar of one value. */
  graphqlType: string;
  array?: boolean;
  /** Must be given (a non-null GraphQL type). */
  required: boolean;
  /** Used when the client leaves the field out (and shown as the field's default). */
  defaultValue?: boolean | number | string;
}

export type KindOperatorInput =
  /** One value (or, with `array`, a list) of a database type. */
  | { kind: 'value'; dbType: string; graphqlType: string; array?: boolean }
  /** An input object of named values; the operator receives them by name. */
  | { kind: 'object'; typeName: string; fields: readonly KindOperatorField[] };

export interface KindOperatorSpec {
  /** The operator as the reference spells it (`_st_d_within`); naming conventions respell it. */
  name: string;
  description?: string;
  input: KindOperatorInput;
}

/** What a kind adds to the comparison type of one of its types. */
export interface TypeOperators {
  operators: readonly KindOperatorSpec[];
  /** Whether `_gt`/`_gte`/`_lt`/`_lte` exist for the type (PostGIS raster has none). */
  ordering: boolean;
  /**
   * `_cast` targets (`geometry` → `geography`): the GraphQL field naming the target type, the
   * database type the column is cast to, and the target's own operators.
   */
  casts: ReadonlyArray<{ graphqlType: string; dbType: string; operators: () => TypeOperators | undefined }>;
}
