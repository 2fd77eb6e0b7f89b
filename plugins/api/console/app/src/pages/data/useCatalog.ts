/** The database catalog of one source, read once per visit and re-read on demand. */
import { useCallback, useEffect, useState } from 'react';
import { readCatalog, type DbCatalog } from '../../api/catalog';
import { useConsole } from '../../state';

export function useCatalog(source: string | undefined): {
  catalog: DbCatalog | null;
  error: unknown;
  reload: () => Promise<void>;
} {
  const { client } = useConsole();
  const [catalog, setCatalog] = useState<DbCatalog | null>(null);
  const [error, setError] = useState<unknown>(null);
  const reload = useCallback(async () => {
    if (!source) return;
    try {
      setCatalog(await readCatalog(client, source));
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, [client, source]);
  useEffect(() => {
    setCatalog(null);
    void reload();
  }, [reload]);
  return { catalog, error, reload };
}
