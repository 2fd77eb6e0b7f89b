/**
 * The PostgreSQL mutation compiler and runner: mutation IR → a small program of statements
 * (./compile.ts explains the shape), run in the request's transaction (./run.ts).
 */
export { compileMutation } from './compile.js';
export { PgCompiledMutation, type PgProgram } from './program.js';
export { ProgramRun } from './run.js';
export { OneTripMutation } from './one-trip.js';
