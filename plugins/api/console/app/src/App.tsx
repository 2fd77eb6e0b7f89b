/**
 * The console shell: asks for the admin secret once (kept in sessionStorage), then shows the
 * navigation, the role picker and the page the hash route names.
 */
import { lazy, Suspense, useEffect, useState } from 'react';
import { ConsoleClient } from './api/client';
import { ConsoleProvider, href, useConsole, useRoute } from './state';
import { ErrorBox } from './components/ui';
import { RolePicker } from './components/RolePicker';
import { DataPage } from './pages/data/DataPage';
import { RawSqlPage } from './pages/data/RawSql';
import { MetadataPage } from './pages/Metadata';
import { EventsPage } from './pages/Events';
import { ScheduledPage } from './pages/Scheduled';
import { ActionsPage } from './pages/Actions';
import { RemoteSchemasPage } from './pages/RemoteSchemas';
import { CollectionsPage } from './pages/Collections';
import { ApiLimitsPage } from './pages/ApiLimits';

// GraphiQL and its editor are most of the console's weight; other pages load without them.
const ApiExplorer = lazy(() => import('./pages/ApiExplorer'));

const client = new ConsoleClient();

export function App() {
  const [state, setState] = useState<'checking' | 'login' | 'ready'>('checking');
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    client.checkAdmin().then(
      (r) => setState(r === 'ok' ? 'ready' : 'login'),
      (e) => {
        setError(e);
        setState('login');
      },
    );
  }, []);
  if (state === 'checking') return <div className="splash">Connecting…</div>;
  if (state === 'login') return <Login initialError={error} onReady={() => setState('ready')} />;
  return (
    <ConsoleProvider client={client}>
      <Shell
        onLogout={() => {
          client.setAdminSecret(null);
          setState('login');
        }}
      />
    </ConsoleProvider>
  );
}

function Login({ onReady, initialError }: { onReady: () => void; initialError: unknown }) {
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<unknown>(initialError);
  const [busy, setBusy] = useState(false);
  return (
    <div className="login">
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          client.setAdminSecret(secret);
          try {
            if ((await client.checkAdmin()) === 'ok') onReady();
            else {
              client.setAdminSecret(null);
              setError(new Error('The admin secret was not accepted.'));
            }
          } catch (err) {
            client.setAdminSecret(null);
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1>svc-graphql-engine console</h1>
        <label>
          Admin secret
          <input type="password" autoFocus autoComplete="current-password" value={secret} data-testid="admin-secret" onChange={(e) => setSecret(e.target.value)} />
        </label>
        <p className="hint">Kept in this browser tab only (sessionStorage); closing the tab forgets it.</p>
        <button type="submit" disabled={busy} data-testid="login">
          Enter
        </button>
        <ErrorBox error={error} />
      </form>
    </div>
  );
}

const NAV: readonly [string, string][] = [
  ['api', 'API'],
  ['data', 'Data'],
  ['sql', 'SQL'],
  ['events', 'Events'],
  ['scheduled', 'Scheduled'],
  ['actions', 'Actions'],
  ['remote-schemas', 'Remote schemas'],
  ['collections', 'Collections & REST'],
  ['limits', 'API limits'],
  ['metadata', 'Metadata'],
];

function Shell({ onLogout }: { onLogout: () => void }) {
  const route = useRoute();
  const { inconsistent, loadError, client: c } = useConsole();
  const page = route[0] ?? 'api';
  return (
    <div className="shell">
      <nav className="topbar">
        <span className="brand">svc console</span>
        {NAV.map(([id, label]) => (
          <a key={id} href={href(id)} className={page === id ? 'active' : undefined} data-testid={`nav-${id}`}>
            {label}
            {id === 'metadata' && inconsistent.length > 0 && (
              <span className="badge" title="inconsistent objects">
                {inconsistent.length}
              </span>
            )}
          </a>
        ))}
        <span className="spacer" />
        <RolePicker />
        {c.adminSecret !== null && (
          <button type="button" className="link" onClick={onLogout}>
            Log out
          </button>
        )}
      </nav>
      <main className={page === 'api' ? 'main full' : 'main'}>
        <ErrorBox error={loadError} />
        <Suspense fallback={<div className="splash">Loading…</div>}>{renderPage(page, route.slice(1))}</Suspense>
      </main>
    </div>
  );
}

function renderPage(page: string, rest: string[]) {
  switch (page) {
    case 'api':
      return <ApiExplorer />;
    case 'data':
      return <DataPage route={rest} />;
    case 'sql':
      return <RawSqlPage />;
    case 'events':
      return <EventsPage />;
    case 'scheduled':
      return <ScheduledPage />;
    case 'actions':
      return <ActionsPage />;
    case 'remote-schemas':
      return <RemoteSchemasPage />;
    case 'collections':
      return <CollectionsPage />;
    case 'limits':
      return <ApiLimitsPage />;
    case 'metadata':
      return <MetadataPage />;
    default:
      return <p>No such page.</p>;
  }
}
