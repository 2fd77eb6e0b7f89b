/**
 * One kind of metadata object (event triggers, actions, remote schemas, ...): the list as the
 * exported metadata holds it, a JSON editor for the create (or, from an item, update) operation
 * prefilled with the args the spec lists, and per-item operations (delete, reload, invoke...).
 * The args go to the engine as written; its error is shown with its path.
 */
import { useState, type ReactNode } from 'react';
import type { ConsoleClient } from '../api/client';
import type { Json, JsonObject } from '../api/metadata';
import { useConsole } from '../state';
import { ActionButton, Empty, ErrorBox, JsonField, Section, Success } from './ui';

export type Endpoint = 'metadata' | 'query';

export interface OperationSpec {
  label: string;
  type: string;
  /** `/v1/query` for the operations the spec lists only on the legacy path. */
  endpoint?: Endpoint;
}

export interface ItemAction<T> extends OperationSpec {
  args(item: T): Json;
  /** Ask for args in the editor (prefilled) instead of sending at once. */
  edit?: boolean;
  danger?: boolean;
  confirm?: string;
}

export interface ObjectKind<T = JsonObject> {
  title: string;
  items: T[];
  name(item: T): string;
  describe?(item: T): ReactNode;
  create?: OperationSpec & { template: Json };
  actions?: ItemAction<T>[];
  /** Operations not tied to one item (e.g. redeliver by event id). */
  extra?: (OperationSpec & { template: Json })[];
  testId: string;
}

export async function send(client: ConsoleClient, endpoint: Endpoint | undefined, type: string, args: Json): Promise<unknown> {
  const op = { type, args };
  return endpoint === 'query' ? client.legacyQuery(op) : client.metadata(op);
}

interface Draft {
  spec: OperationSpec;
  args: Json;
}

export function ObjectSection<T>({ kind }: { kind: ObjectKind<T> }) {
  const { client, refresh } = useConsole();
  const [draft, setDraft] = useState<Draft | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [answer, setAnswer] = useState<unknown>(undefined);
  const run = async (spec: OperationSpec, args: Json) => {
    setError(null);
    setAnswer(undefined);
    try {
      const r = await send(client, spec.endpoint, spec.type, args);
      setAnswer(r);
      setDraft(null);
      await refresh();
    } catch (e) {
      setError(e);
    }
  };
  const open = (spec: OperationSpec, args: Json) => {
    setError(null);
    setAnswer(undefined);
    setDraft({ spec, args });
  };
  return (
    <Section
      title={kind.title}
      actions={
        <>
          {kind.create && (
            <button type="button" data-testid={`${kind.testId}-create`} onClick={() => open(kind.create!, kind.create!.template)}>
              {kind.create.label}
            </button>
          )}
          {kind.extra?.map((x) => (
            <button type="button" key={x.type} onClick={() => open(x, x.template)}>
              {x.label}
            </button>
          ))}
        </>
      }
    >
      {kind.items.length === 0 ? (
        <Empty>None yet.</Empty>
      ) : (
        <table className="grid" data-testid={`${kind.testId}-list`}>
          <tbody>
            {kind.items.map((item) => (
              <tr key={kind.name(item)}>
                <td>
                  <b>{kind.name(item)}</b>
                </td>
                <td>{kind.describe?.(item)}</td>
                <td className="row-actions">
                  {kind.actions?.map((a) =>
                    a.edit ? (
                      <button type="button" key={a.type} onClick={() => open(a, a.args(item))}>
                        {a.label}
                      </button>
                    ) : (
                      <ActionButton key={a.type} danger={a.danger} confirm={a.confirm} onClick={() => run(a, a.args(item))}>
                        {a.label}
                      </ActionButton>
                    ),
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {draft && (
        <div className="draft" data-testid={`${kind.testId}-draft`}>
          <h3>
            <code>{draft.spec.type}</code> {draft.spec.endpoint === 'query' ? 'on /v1/query' : 'on /v1/metadata'}
          </h3>
          <JsonField key={draft.spec.type + JSON.stringify(draft.args).length} value={draft.args} onChange={(args) => setDraft({ ...draft, args })} rows={14} label="args" testId={`${kind.testId}-args`} />
          <div className="row">
            <ActionButton testId={`${kind.testId}-submit`} onClick={() => run(draft.spec, draft.args)}>
              {draft.spec.label}
            </ActionButton>
            <button type="button" className="link" onClick={() => setDraft(null)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      <ErrorBox error={error} />
      {answer !== undefined && (
        <Success>
          <code>{JSON.stringify(answer)}</code>
        </Success>
      )}
    </Section>
  );
}
