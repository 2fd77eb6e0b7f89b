/**
 * Whole-metadata actions: export (download), import (replace_metadata), reload (with its
 * options), clear, and the inconsistent objects with "drop inconsistent".
 */
import { useState } from 'react';
import { useConsole } from '../state';
import { ActionButton, Empty, ErrorBox, Section, Success } from '../components/ui';
import { OperationButton } from '../components/OperationButton';

export function MetadataPage() {
  const { client, inconsistent, refresh } = useConsole();
  const [message, setMessage] = useState<string | null>(null);
  const [importText, setImportText] = useState('');
  const [allowInconsistent, setAllowInconsistent] = useState(false);
  const [reloadSources, setReloadSources] = useState(true);
  const [reloadRemote, setReloadRemote] = useState(true);
  const [recreateTriggers, setRecreateTriggers] = useState(false);
  const [importError, setImportError] = useState<unknown>(null);

  return (
    <>
      <h1>Metadata</h1>
      {message && <Success>{message}</Success>}
      <Section title="Inconsistent objects" actions={inconsistent.length > 0 && (
        <OperationButton
          danger
          testId="drop-inconsistent"
          confirm="Remove every inconsistent object from the metadata?"
          op={{ type: 'drop_inconsistent_metadata', args: {} }}
          onDone={() => setMessage('Inconsistent objects dropped.')}
        >
          Drop inconsistent objects
        </OperationButton>
      )}>
        {inconsistent.length === 0 ? (
          <Empty>The metadata is consistent with the databases.</Empty>
        ) : (
          <table className="grid" data-testid="inconsistent-objects">
            <thead>
              <tr>
                <th>Type</th>
                <th>Name</th>
                <th>Reason</th>
                <th>Definition</th>
              </tr>
            </thead>
            <tbody>
              {inconsistent.map((o, i) => (
                <tr key={i}>
                  <td>{o.type}</td>
                  <td>{o.name ?? ''}</td>
                  <td>{o.reason}</td>
                  <td>
                    <code>{JSON.stringify(o.definition)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
      <Section title="Reload">
        <div className="row">
          <label>
            <input type="checkbox" checked={reloadSources} onChange={(e) => setReloadSources(e.target.checked)} /> reload sources
          </label>
          <label>
            <input type="checkbox" checked={reloadRemote} onChange={(e) => setReloadRemote(e.target.checked)} /> reload remote schemas
          </label>
          <label>
            <input type="checkbox" checked={recreateTriggers} onChange={(e) => setRecreateTriggers(e.target.checked)} /> recreate event triggers
          </label>
          <ActionButton
            testId="reload-metadata"
            onClick={async () => {
              const r = await client.metadata<{ is_consistent: boolean; message: string }>({
                type: 'reload_metadata',
                args: { reload_sources: reloadSources, reload_remote_schemas: reloadRemote, recreate_event_triggers: recreateTriggers },
              });
              await refresh();
              setMessage(`Reloaded: ${r.is_consistent ? 'consistent' : 'inconsistent objects remain'}.`);
            }}
          >
            Reload metadata
          </ActionButton>
        </div>
      </Section>
      <Section title="Export">
        <ActionButton
          testId="export-metadata"
          onClick={async () => {
            const r = await client.metadata<{ resource_version: number; metadata: unknown }>({ type: 'export_metadata', version: 2, args: {} });
            const blob = new Blob([JSON.stringify(r.metadata, null, 2)], { type: 'application/json' });
            const a = document.createElement('a');
            a.href = URL.createObjectURL(blob);
            a.download = `metadata-v${r.resource_version}.json`;
            a.click();
            URL.revokeObjectURL(a.href);
            setMessage(`Exported resource version ${r.resource_version}.`);
          }}
        >
          Download metadata.json
        </ActionButton>
      </Section>
      <Section title="Import (replace)">
        <input
          type="file"
          accept="application/json,.json"
          onChange={async (e) => {
            const f = e.target.files?.[0];
            if (f) setImportText(await f.text());
          }}
        />
        <textarea rows={8} spellCheck={false} value={importText} placeholder="or paste an exported metadata document" onChange={(e) => setImportText(e.target.value)} />
        <div className="row">
          <label>
            <input type="checkbox" checked={allowInconsistent} onChange={(e) => setAllowInconsistent(e.target.checked)} /> allow inconsistent metadata
          </label>
          <ActionButton
            disabled={!importText.trim()}
            confirm="Replace the whole metadata with this document?"
            onClick={async () => {
              setImportError(null);
              let doc: unknown;
              try {
                doc = JSON.parse(importText);
              } catch (err) {
                setImportError(new Error(`not JSON: ${(err as Error).message}`));
                return;
              }
              try {
                const r = await client.metadata<{ is_consistent?: boolean }>({
                  type: 'replace_metadata',
                  version: 2,
                  args: { allow_inconsistent_metadata: allowInconsistent, metadata: doc },
                });
                await refresh();
                setMessage(r?.is_consistent === false ? 'Imported, with inconsistent objects.' : 'Imported.');
              } catch (err) {
                setImportError(err);
              }
            }}
          >
            Replace metadata
          </ActionButton>
        </div>
        <ErrorBox error={importError} />
      </Section>
      <Section title="Clear">
        <OperationButton
          danger
          testId="clear-metadata"
          confirm="Forget every tracked table, relationship, permission and the rest? The databases are not touched."
          op={{ type: 'clear_metadata', args: {} }}
          onDone={() => setMessage('Metadata cleared.')}
        >
          Clear metadata
        </OperationButton>
      </Section>
    </>
  );
}
