/**
 * GraphiQL (the maintained `graphiql` package: history, variables, headers, docs) with the schema
 * of the chosen role, the schema explorer plugin, and an Explain button that shows the SQL and
 * the database plan of each root field from /v1/graphql/explain. Requests carry the admin secret,
 * X-Svc-Role and the session variables; headers typed in GraphiQL's editor override them.
 */
import 'graphiql/setup-workers/vite';
import 'graphiql/style.css';
import '@graphiql/plugin-explorer/style.css';
import { useMemo, useState } from 'react';
import { GraphiQL, HISTORY_PLUGIN, type GraphiQLProps } from 'graphiql';
import { ToolbarButton, useGraphiQL } from '@graphiql/react';
import { explorerPlugin } from '@graphiql/plugin-explorer';
import { useConsole } from '../state';
import type { ConsoleClient, ExplainedField } from '../api/client';
import { ErrorBox } from '../components/ui';

const explorer = explorerPlugin({ showAttribution: false });
// Giving `plugins` replaces GraphiQL's default list, which is the history alone.
const PLUGINS = [HISTORY_PLUGIN, explorer];

type Fetcher = GraphiQLProps['fetcher'];

function makeFetcher(client: ConsoleClient): Fetcher {
  return async (params, options) => {
    const res = await fetch('/v1/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...client.roleHeaders(), ...(options?.headers ?? {}) },
      body: JSON.stringify(params),
    });
    const text = await res.text();
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      return { errors: [{ message: `HTTP ${res.status}: ${text}` }] };
    }
  };
}

/** A query handed over in the route (`#/api?query=...`), e.g. from a data page's "Open in GraphiQL". */
function queryFromHash(): string | undefined {
  const q = window.location.hash.split('?')[1];
  return q ? (new URLSearchParams(q).get('query') ?? undefined) : undefined;
}

interface ExplainState {
  fields?: ExplainedField[];
  error?: unknown;
}

function ExplainButton({ onExplain }: { onExplain: (query: string, variables: string) => void }) {
  const queryEditor = useGraphiQL((s) => s.queryEditor);
  const variableEditor = useGraphiQL((s) => s.variableEditor);
  return (
    <ToolbarButton
      label="Explain: show the generated SQL and plan"
      data-testid="explain"
      onClick={() => onExplain(queryEditor?.getValue() ?? '', variableEditor?.getValue() ?? '')}
    >
      <span className="explain-icon">SQL</span>
    </ToolbarButton>
  );
}

export default function ApiExplorer() {
  const { client, identity } = useConsole();
  const fetcher = useMemo(() => makeFetcher(client), [client, identity]);
  const [explain, setExplain] = useState<ExplainState | null>(null);
  const initialQuery = useMemo(queryFromHash, []);

  const runExplain = async (query: string, variablesText: string) => {
    setExplain({});
    try {
      const variables = variablesText.trim() ? (JSON.parse(variablesText) as Record<string, unknown>) : undefined;
      const user: Record<string, string> = {};
      for (const [k, v] of Object.entries(client.roleHeaders())) if (k.startsWith('x-svc-') && k !== 'x-svc-admin-secret') user[k] = v;
      setExplain({ fields: await client.explain(query, variables, user) });
    } catch (e) {
      setExplain({ error: e });
    }
  };

  return (
    <div className="api-explorer">
      <div className="graphiql-host" data-testid="graphiql">
        <GraphiQL key={identity} fetcher={fetcher} plugins={PLUGINS} initialQuery={initialQuery} shouldPersistHeaders={false}>
          <GraphiQL.Toolbar>
            {({ prettify, copy, merge }) => (
              <>
                {prettify}
                {merge}
                {copy}
                <ExplainButton onExplain={(q, v) => void runExplain(q, v)} />
              </>
            )}
          </GraphiQL.Toolbar>
        </GraphiQL>
      </div>
      {explain && (
        <aside className="explain" data-testid="explain-panel">
          <header>
            <h2>Explain ({client.role})</h2>
            <button type="button" className="link" onClick={() => setExplain(null)}>
              Close
            </button>
          </header>
          {!explain.fields && !explain.error && <p>Explaining…</p>}
          <ErrorBox error={explain.error} />
          {explain.fields?.map((f) => (
            <div key={f.field} className="explained">
              <h3>{f.field}</h3>
              {f.sql === null ? <p className="empty">Not run on a database (introspection or remote field).</p> : <pre className="sql">{f.sql}</pre>}
              {f.plan && <pre className="plan">{f.plan.join('\n')}</pre>}
            </div>
          ))}
        </aside>
      )}
    </div>
  );
}
