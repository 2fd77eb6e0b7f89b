/** The conformance suite against the mariadb kind, on the machine's MariaDB in a database of its own. */
import { createMariaFixture, dropMariaDatabase, MARIA_SERVER } from './mariadb-fixture.js';
import { conformanceSuite } from './suite.js';

const DATABASE = 'maria_conformance';

conformanceSuite({
  name: 'mariadb',
  prefix: 'maria',
  plugin: 'db/mariadb',
  titleConstraint: 'article_title_key',
  capabilities: {
    distinctOn: false,
    mutations: true,
    onConflict: true,
    operators: ['_eq', '_neq', '_gt', '_lt', '_gte', '_lte', '_in', '_nin', '_is_null', '_like', '_nlike', '_ilike', '_nilike', '_similar', '_nsimilar', '_regex', '_nregex', '_iregex', '_niregex'],
    aggregatePredicates: ['bool_and', 'bool_or', 'count'],
  },
  async setup() {
    await createMariaFixture(DATABASE);
    return { configuration: { connection_info: { host: MARIA_SERVER.host, port: MARIA_SERVER.port, user: MARIA_SERVER.user, database: DATABASE } }, schema: DATABASE };
  },
  teardown: () => dropMariaDatabase(DATABASE),
});
