/**
 * The MariaDB floor: the least a Node GraphQL server can do per request against MariaDB (parse
 * the body, one prepared statement through a bare mysql2 pool, splice the JSON text into
 * `{"data":…}`). Usage: mariadb-floor.ts <config.json>.
 */
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { createPool, type ExecuteValues, type RowDataPacket } from 'mysql2/promise';

interface Route { text: string; args: string[]; field: string }
const config = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as {
  port: number;
  connection: { host: string; port: number; user: string; database: string };
  poolSize: number;
  routes: Record<string, Route>;
};
const routes = new Map(Object.entries(config.routes));
const pool = createPool({ ...config.connection, connectionLimit: config.poolSize, jsonStrings: true });

createServer((req, res) => {
  let body = '';
  req.on('data', (d: Buffer) => (body += d));
  req.on('end', () => {
    const { query, variables = {} } = JSON.parse(body) as { query: string; variables?: Record<string, unknown> };
    const route = routes.get(query);
    if (!route) return void res.writeHead(400).end('{"errors":[{"message":"unknown query"}]}');
    pool.execute<RowDataPacket[]>({ sql: route.text, rowsAsArray: true }, route.args.map((a) => variables[a]) as ExecuteValues[]).then(
      ([rows]) => res.writeHead(200, { 'content-type': 'application/json' }).end(`{"data":{"${route.field}":${(rows[0] as unknown[] | undefined)?.[0] ?? 'null'}}}`),
      (e: Error) => res.writeHead(500).end(JSON.stringify({ errors: [{ message: e.message }] })),
    );
  });
}).listen(config.port, '127.0.0.1');
