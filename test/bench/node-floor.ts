/**
 * The "Node floor": the least a Node GraphQL server can do per request (parse the body, one
 * prepared statement with the engine's SQL, splice the JSON text into `{"data":…}`). The engine's
 * distance from it is the cost of its GraphQL layer. Usage: node-floor.ts <config.json>.
 */
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import pg from 'pg';

interface Route { name: string; text: string; args: string[]; field: string; fixed?: string }
const config = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as { port: number; databaseUrl: string; poolSize: number; routes: Record<string, Route> };
const routes = new Map(Object.entries(config.routes));
const pool = new pg.Pool({ connectionString: config.databaseUrl, max: config.poolSize });

createServer((req, res) => {
  let body = '';
  req.on('data', (d: Buffer) => (body += d));
  req.on('end', () => {
    const { query, variables = {} } = JSON.parse(body) as { query: string; variables?: Record<string, unknown> };
    const route = routes.get(query);
    if (!route) return void res.writeHead(400).end('{"errors":[{"message":"unknown query"}]}');
    if (route.fixed !== undefined) return void res.writeHead(200, { 'content-type': 'application/json' }).end(route.fixed);
    pool.query({ name: route.name, text: route.text, values: route.args.map((a) => variables[a]), rowMode: 'array' }).then(
      (r) => res.writeHead(200, { 'content-type': 'application/json' }).end(`{"data":{"${route.field}":${r.rows[0][0]}}}`),
      (e: Error) => res.writeHead(500).end(JSON.stringify({ errors: [{ message: e.message }] })),
    );
  });
}).listen(config.port, '127.0.0.1');
