/**
 * The PostgreSQL query compiler: IR → one statement per root field, and the binder that turns a
 * request's resolved values into driver parameters for it.
 */
export { compileRootField } from './compile.js';
export { bindValues } from './bind.js';
export type { PgCompileOptions, SqlParam } from './context.js';
