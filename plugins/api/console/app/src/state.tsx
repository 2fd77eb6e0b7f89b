/**
 * Shared state of the console: the client, the exported metadata (re-read after every change so
 * each page shows what the engine holds), the inconsistent objects, and the hash route.
 */
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { ConsoleClient } from './api/client';
import { withTableSchemas, type InconsistentObject, type MetadataDocument } from './api/metadata';

export interface ConsoleState {
  client: ConsoleClient;
  metadata: MetadataDocument | null;
  inconsistent: InconsistentObject[];
  loadError: unknown;
  /** Re-reads metadata and inconsistencies; pages call it after an operation. */
  refresh(): Promise<void>;
  /** Bumped when the role or session variables change, so GraphiQL refetches the schema. */
  identity: number;
  identityChanged(): void;
}

const Ctx = createContext<ConsoleState | null>(null);

export function useConsole(): ConsoleState {
  const state = useContext(Ctx);
  if (!state) throw new Error('useConsole outside ConsoleProvider');
  return state;
}

export function ConsoleProvider({ client, children }: { client: ConsoleClient; children: ReactNode }) {
  const [metadata, setMetadata] = useState<MetadataDocument | null>(null);
  const [inconsistent, setInconsistent] = useState<InconsistentObject[]>([]);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [identity, setIdentity] = useState(0);
  const refresh = useCallback(async () => {
    try {
      const [md, inc] = await Promise.all([
        client.metadata<MetadataDocument>({ type: 'export_metadata', version: 1, args: {} }),
        client.metadata<{ inconsistent_objects: InconsistentObject[] }>({ type: 'get_inconsistent_metadata', args: {} }),
      ]);
      setMetadata(withTableSchemas(md));
      setInconsistent(inc.inconsistent_objects ?? []);
      setLoadError(null);
    } catch (e) {
      setLoadError(e);
    }
  }, [client]);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  const identityChanged = useCallback(() => setIdentity((n) => n + 1), []);
  return (
    <Ctx.Provider value={{ client, metadata, inconsistent, loadError, refresh, identity, identityChanged }}>{children}</Ctx.Provider>
  );
}

/** The hash route as path segments: `#/data/default/public/authors/browse` → [...]; `?...` is the page's own. */
export function useRoute(): string[] {
  const read = () =>
    window.location.hash
      .replace(/^#\/?/, '')
      .split('?')[0]!
      .split('/')
      .filter(Boolean)
      .map((s) => decodeURIComponent(s));
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const on = () => setRoute(read());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return route;
}

export const href = (...segments: string[]): string => `#/${segments.map(encodeURIComponent).join('/')}`;
export const navigate = (...segments: string[]): void => {
  window.location.hash = href(...segments);
};
