/**
 * MariaDB DATETIME/TIMESTAMP values read and written as the PostgreSQL kind reads and writes a
 * `timestamp` (without time zone): ISO 8601 with `T`, fractional seconds without trailing zeros,
 * a zone designator in input ignored. The same table lives in PostgreSQL (the engine's own
 * database) and in the machine's MariaDB; each query is asked of both and the answers compared
 * (values and key order), besides the literal values expected.
 */
import { expect } from 'chai';
import { startTwin, type Twin } from './twin.js';

const ROWS = `(1, '2024-01-01 10:00:00', 'a'), (2, '2024-01-01 10:00:00.12', 'b'), (3, '2024-06-30 23:59:59.999999', 'c'), (4, NULL, 'd')`;

describe('db/mariadb timestamps read and written as PostgreSQL does (integration)', function () {
  this.timeout(60_000);
  let twin: Twin;
  const same = (query: string): Promise<string> => twin.same(query);

  before(async () => {
    twin = await startTwin({
      prefix: 'ts',
      pgSql: `CREATE TABLE event (id int PRIMARY KEY, at timestamp(6) NULL, label varchar(20) NOT NULL); INSERT INTO event VALUES ${ROWS};`,
      mariaSql: (db) => [`CREATE TABLE ${db}.event (id INT PRIMARY KEY, at DATETIME(6) NULL, label VARCHAR(20) NOT NULL)`, `INSERT INTO ${db}.event VALUES ${ROWS}`],
      tables: ['event'],
    });
  });
  after(async () => {
    await twin?.close();
  });

  it('selects DATETIME values as ISO 8601 with T, fractions trimmed, NULL as null', async () => {
    const text = await same('{ event(order_by: {id: asc}) { id at } }');
    expect(text).to.equal(
      '{"data":{"event":[{"id":1,"at":"2024-01-01T10:00:00"},{"id":2,"at":"2024-01-01T10:00:00.12"},{"id":3,"at":"2024-06-30T23:59:59.999999"},{"id":4,"at":null}]}}',
    );
  });

  it('filters with ISO input, with or without a zone designator (ignored, as by timestamp)', async () => {
    for (const where of [
      '{at: {_eq: "2024-01-01T10:00:00"}}',
      '{at: {_eq: "2024-01-01 10:00:00.120"}}',
      '{at: {_gt: "2024-01-01T10:00:00Z"}}',
      '{at: {_lte: "2024-01-01T10:00:00.12+02:00"}}',
      '{at: {_in: ["2024-01-01T10:00:00.12Z", "2024-06-30T23:59:59.999999-0500"]}}',
      '{at: {_nin: ["2024-01-01T10:00:00"]}}',
    ]) {
      const text = await same(`{ event(where: ${where}, order_by: {id: asc}) { id } }`);
      expect(text, where).to.match(/"id":/);
    }
    expect(await same('{ event(where: {at: {_in: ["2024-01-01T10:00:00.12Z", "2024-06-30T23:59:59.999999-05:00"]}}, order_by: {id: asc}) { id } }')).to.equal(
      '{"data":{"event":[{"id":2},{"id":3}]}}',
    );
  });

  it('aggregates min and max as ISO text', async () => {
    const text = await same('{ event_aggregate { aggregate { count(columns: at) min { at } max { at } } } }');
    expect(text).to.equal('{"data":{"event_aggregate":{"aggregate":{"count":3,"min":{"at":"2024-01-01T10:00:00"},"max":{"at":"2024-06-30T23:59:59.999999"}}}}}');
    // A capped aggregate (a limit) goes through a derived table: the same text.
    await same('{ event_aggregate(order_by: {id: asc}, limit: 2) { aggregate { max { at } } nodes { at } } }');
  });

  it('inserts and updates from ISO input and returns ISO text', async () => {
    const inserted = await same('mutation { insert_event(objects: [{id: 10, at: "2024-03-01T08:30:00.5Z", label: "x"}]) { returning { id at } } }');
    expect(inserted).to.equal('{"data":{"insert_event":{"returning":[{"id":10,"at":"2024-03-01T08:30:00.5"}]}}}');
    const updated = await same('mutation { update_event(where: {at: {_eq: "2024-03-01T08:30:00.500"}}, _set: {at: "2024-03-02T00:00:00"}) { affected_rows returning { id at } } }');
    expect(updated).to.equal('{"data":{"update_event":{"affected_rows":1,"returning":[{"id":10,"at":"2024-03-02T00:00:00"}]}}}');
    const one = await same('mutation { insert_event_one(object: {id: 11, at: "2024-03-03T01:02:03.000100", label: "y"}) { at } }');
    expect(one).to.equal('{"data":{"insert_event_one":{"at":"2024-03-03T01:02:03.0001"}}}');
  });
});
