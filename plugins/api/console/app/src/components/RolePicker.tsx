/**
 * Chooses the role (X-Svc-Role) and session variables (X-Svc-*) that GraphQL requests from the
 * console carry. Roles offered are those named in the metadata; any other can be typed.
 */
import { useState } from 'react';
import { rolesOf } from '../api/metadata';
import { useConsole } from '../state';

export function RolePicker() {
  const { client, metadata, identityChanged } = useConsole();
  const [role, setRole] = useState(client.role);
  const [open, setOpen] = useState(false);
  const [vars, setVars] = useState<[string, string][]>(() => Object.entries(client.sessionVariables));
  const apply = (nextRole: string, nextVars: [string, string][]) => {
    client.setRole(nextRole);
    client.setSessionVariables(Object.fromEntries(nextVars.filter(([k]) => k.trim() !== '')));
    identityChanged();
  };
  return (
    <div className="role-picker">
      <label>
        Role
        <input
          list="svc-roles"
          value={role}
          data-testid="role"
          onChange={(e) => setRole(e.target.value)}
          onBlur={() => apply(role, vars)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') apply(role, vars);
          }}
        />
        <datalist id="svc-roles">
          {rolesOf(metadata).map((r) => (
            <option key={r} value={r} />
          ))}
        </datalist>
      </label>
      <button type="button" className="link" data-testid="session-variables-toggle" onClick={() => setOpen(!open)}>
        Session variables ({vars.filter(([k]) => k).length})
      </button>
      {open && (
        <div className="popover" data-testid="session-variables">
          {vars.map(([k, v], i) => (
            <div key={i} className="row">
              <input
                placeholder="x-svc-user-id"
                value={k}
                data-testid={`session-var-name-${i}`}
                onChange={(e) => setVars(vars.map((p, j) => (j === i ? [e.target.value, p[1]] : p)))}
              />
              <input
                placeholder="value"
                value={v}
                data-testid={`session-var-value-${i}`}
                onChange={(e) => setVars(vars.map((p, j) => (j === i ? [p[0], e.target.value] : p)))}
              />
              <button type="button" className="link" onClick={() => setVars(vars.filter((_, j) => j !== i))}>
                ✕
              </button>
            </div>
          ))}
          <div className="row">
            <button type="button" onClick={() => setVars([...vars, ['', '']])} data-testid="session-var-add">
              Add variable
            </button>
            <button
              type="button"
              data-testid="session-vars-apply"
              onClick={() => {
                apply(role, vars);
                setOpen(false);
              }}
            >
              Apply
            </button>
          </div>
        </div>
      )}
      <span className="role-now" data-testid="role-now">
        as <b>{client.role}</b>
      </span>
    </div>
  );
}
