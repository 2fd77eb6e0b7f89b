/**
 * The conformance fixture (test/conformance/fixture.ts) as BigQuery's INFORMATION_SCHEMA would
 * describe it in dataset `conf`: `author` and `article` with their primary keys and article's
 * foreign key to author (declared NOT ENFORCED, as BigQuery keys are), and the table-valued
 * functions `articles_of(a_id INT64)` and `articles_above(a_id INT64, min_views INT64)` (rows of
 * `article`) and the scalar `shout(s STRING)`.
 */
import type { RecordedQuery, StandInAnswer } from './stand-in.js';
import { flatAnswer } from './rows.js';

export const DATASET = 'conf';

const COLUMNS: Array<[string, string, number, 'YES' | 'NO', string]> = [
  ['article', 'id', 1, 'NO', 'INT64'],
  ['article', 'title', 2, 'NO', 'STRING(100)'],
  ['article', 'author_id', 3, 'YES', 'INT64'],
  ['article', 'published', 4, 'NO', 'BOOL'],
  ['article', 'views', 5, 'YES', 'INT64'],
  ['author', 'id', 1, 'NO', 'INT64'],
  ['author', 'name', 2, 'NO', 'STRING(50)'],
  ['author', 'rating', 3, 'YES', 'INT64'],
];

/** The answer to one of introspection's four queries, or null for any other statement. */
export function introspectionAnswer(q: RecordedQuery): StandInAnswer | null {
  if (!q.query.includes(`\`${DATASET}\`.INFORMATION_SCHEMA`)) return null;
  if (q.query.includes('INFORMATION_SCHEMA.TABLES')) {
    return flatAnswer(['table_name', 'table_type', 'description'], [['article', 'BASE TABLE', null], ['author', 'BASE TABLE', '"People who write"']]);
  }
  if (q.query.includes('INFORMATION_SCHEMA.COLUMNS')) {
    return flatAnswer(['table_name', 'column_name', 'ordinal_position', 'is_nullable', 'data_type', 'description'], COLUMNS.map((c) => [...c, c[1] === 'rating' ? 'Stars, 1 to 5' : null]));
  }
  if (q.query.includes('INFORMATION_SCHEMA.TABLE_CONSTRAINTS')) {
    return flatAnswer(
      ['constraint_name', 'table_name', 'constraint_type', 'column_name', 'ordinal_position', 'position_in_unique_constraint'],
      [
        ['article.fk_author', 'article', 'FOREIGN KEY', 'author_id', 1, 1],
        ['article.pk$', 'article', 'PRIMARY KEY', 'id', 1, null],
        ['author.pk$', 'author', 'PRIMARY KEY', 'id', 1, null],
      ],
    );
  }
  // Table-valued functions for computed fields, and one scalar function (which cannot be one).
  if (q.query.includes('INFORMATION_SCHEMA.ROUTINES')) {
    return flatAnswer(['routine_name', 'routine_type'], [['articles_above', 'TABLE FUNCTION'], ['articles_of', 'TABLE FUNCTION'], ['shout', 'SCALAR FUNCTION']]);
  }
  if (q.query.includes('INFORMATION_SCHEMA.PARAMETERS')) {
    return flatAnswer(['specific_name', 'ordinal_position', 'parameter_name', 'data_type'], [
      ['articles_above', 1, 'a_id', 'INT64'],
      ['articles_above', 2, 'min_views', 'INT64'],
      ['articles_of', 1, 'a_id', 'INT64'],
      ['shout', 1, 's', 'STRING'],
    ]);
  }
  if (q.query.includes('INFORMATION_SCHEMA.CONSTRAINT_COLUMN_USAGE')) {
    return flatAnswer(['constraint_name', 'table_schema', 'table_name', 'column_name'], [
      ['article.fk_author', DATASET, 'author', 'id'],
      ['article.pk$', DATASET, 'article', 'id'],
      ['author.pk$', DATASET, 'author', 'id'],
    ]);
  }
  return null;
}
