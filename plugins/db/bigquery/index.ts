/**
 * The `bigquery` database kind (`wh_` operations), written against the SDK alone: a client per
 * source (@google-cloud/bigquery, loaded on first use), introspection from each dataset's
 * INFORMATION_SCHEMA, and the query IR compiled to one Standard SQL statement per root field
 * whose result is the answer's shape in STRUCTs and ARRAYs. Read-only, as the reference: it
 * declares only `computedFields` (table-valued functions fed the row's columns through
 * `argument_mapping`), so there are no mutations, subscriptions, tracked functions, enum tables,
 * run_sql, event triggers, remote relationships or distinct_on for its sources.
 * Provides `wh-string-numeric-input` (numeric inputs as strings, with the experimental feature).
 * Plugin option `apiEndpoint`: the BigQuery REST endpoint (default Google's). Taps
 * `onSchemaBuild` at DEFAULT; safe to disable (its sources become inconsistent).
 */
import { addSourceToDraft, asValue, definePlugin, Stage, type DatabaseKind } from '../../../core/sdk/index.js';
import { parseBigQueryConfiguration, resolveBigQueryConfiguration } from './config.js';
import { bigQueryScalarTypes } from './scalar-types.js';
import { BigQuerySourceConnection } from './source-connection.js';

const PLUGIN_ID = 'db/bigquery';

export interface BigQueryPluginOptions {
  apiEndpoint?: string;
  stringNumericInput: boolean;
}

export default definePlugin<BigQueryPluginOptions>({
  name: 'bigquery',
  kind: 'db',
  provides: ['wh-string-numeric-input'],
  optionsSchema: {
    type: 'object',
    properties: {
      apiEndpoint: { type: 'string', pattern: '^https?://' },
      stringNumericInput: { type: 'boolean', default: false },
    },
    required: ['stringNumericInput'],
    additionalProperties: false,
  },
  optionsFromConfig: (config) => ({ stringNumericInput: config.experimentalFeatures.includes('wh_string_numeric_input') }),
  register(container, hooks, options) {
    const env = container.hasRegistration('env') ? container.resolve<NodeJS.ProcessEnv>('env') : process.env;
    const kind: DatabaseKind = {
      kind: 'bigquery',
      prefix: 'wh',
      tableSchemaKey: 'dataset',
      // Computed fields are table-valued functions fed the row's columns (`argument_mapping`).
      capabilities: { computedFields: true },
      computedFieldArguments: 'columns',
      scalarTypes: bigQueryScalarTypes(options.stringNumericInput),
      validateConfiguration: (configuration, path) => {
        parseBigQueryConfiguration(configuration, path);
      },
      // Environment variables are read when the source first queries, so a missing one fails requests, not the start.
      connect: (_sourceName, configuration) => new BigQuerySourceConnection(() => resolveBigQueryConfiguration(configuration, env), options.apiEndpoint),
    };
    container.register({ 'db.bigquery': asValue(kind) });
    hooks.onSchemaBuild.tap({ name: PLUGIN_ID, stage: Stage.DEFAULT }, (draft, ctx) => {
      for (const source of ctx.cache.sources.values()) {
        if (source.kind === 'bigquery') addSourceToDraft(draft, source, ctx);
      }
      return draft;
    });
  },
});
