/** API limits (Document 2 §2.4, §4.4): depth, node, time, batch and rate limits, global and per role. */
import { useState } from 'react';
import type { Json, JsonObject } from '../api/metadata';
import { useConsole } from '../state';
import { ActionButton, ErrorBox, JsonField, Section, Success } from '../components/ui';

const TEMPLATE: JsonObject = {
  disabled: false,
  depth_limit: { global: 10, per_role: {} },
  node_limit: { global: 100, per_role: {} },
  time_limit: { global: 10, per_role: {} },
  batch_limit: { global: 5, per_role: {} },
  rate_limit: { global: { unique_params: 'IP', max_reqs_per_min: 600 }, per_role: {} },
};

export function ApiLimitsPage() {
  const { client, metadata, refresh } = useConsole();
  const current = metadata?.api_limits;
  const [limits, setLimits] = useState<Json>(current && Object.keys(current).length ? current : TEMPLATE);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  return (
    <>
      <h1>API limits</h1>
      <Section title={current && Object.keys(current).length ? 'Limits in force' : 'No limits set: a starting point'}>
        <p className="muted">
          Every limit needs <code>global</code>; <code>per_role</code> overrides it. <code>rate_limit.unique_params</code> is <code>"IP"</code> or a list of session
          variables; without it requests are counted per role.
        </p>
        <JsonField key={JSON.stringify(current ?? null)} value={limits} onChange={setLimits} rows={18} testId="api-limits" />
        <div className="row">
          <ActionButton
            testId="set-api-limits"
            onClick={async () => {
              setError(null);
              setDone(null);
              try {
                await client.metadata({ type: 'set_api_limits', args: limits });
                await refresh();
                setDone('Limits saved.');
              } catch (e) {
                setError(e);
              }
            }}
          >
            Save limits
          </ActionButton>
          <ActionButton
            danger
            confirm="Remove every API limit?"
            onClick={async () => {
              await client.metadata({ type: 'remove_api_limit', args: {} });
              await refresh();
              setLimits(TEMPLATE);
              setDone('Limits removed.');
            }}
          >
            Remove all limits
          </ActionButton>
        </div>
        <ErrorBox error={error} />
        {done && <Success>{done}</Success>}
      </Section>
      <IntrospectionOptions />
    </>
  );
}

/** Roles for which `__schema` and `__type` do not exist (`graphql_schema_introspection` in metadata). */
function IntrospectionOptions() {
  const { client, metadata, refresh } = useConsole();
  const current = (metadata?.['graphql_schema_introspection'] as { disabled_for_roles?: string[] } | undefined)?.disabled_for_roles ?? [];
  const [roles, setRoles] = useState(current.join(', '));
  return (
    <Section title="Schema introspection">
      <p className="muted">Roles that may not introspect the schema (comma list); admin always may.</p>
      <div className="row">
        <input value={roles} data-testid="introspection-roles" onChange={(e) => setRoles(e.target.value)} />
        <ActionButton
          testId="set-introspection"
          onClick={async () => {
            const list = roles.split(',').map((r) => r.trim()).filter(Boolean);
            await client.metadata({ type: 'set_graphql_schema_introspection_options', args: { disabled_for_roles: list } });
            await refresh();
          }}
        >
          Save
        </ActionButton>
      </div>
    </Section>
  );
}
