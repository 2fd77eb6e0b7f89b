// graphql-js chooses its type checks when it is first loaded: unless NODE_ENV is `production`,
// every failed `isObjectType`-style check also compares class names to catch two copies of
// graphql in one process, a development aid that was a tenth of the CPU of building a role schema
// and of answering introspection. The engine ships one graphql, so the compiled engine loads it in
// its production mode; NODE_ENV itself is left as given (it also sets the default of --workers).
const nodeEnv = process.env.NODE_ENV;
process.env.NODE_ENV = 'production';
try {
  await import('graphql');
} finally {
  if (nodeEnv === undefined) delete process.env.NODE_ENV;
  else process.env.NODE_ENV = nodeEnv;
}
