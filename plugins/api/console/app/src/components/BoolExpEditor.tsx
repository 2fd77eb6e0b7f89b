/**
 * A boolean expression (row filter or check) built visually — conditions on columns, joined by
 * AND or OR, each compared with a value or a session variable — or written as JSON. Expressions
 * the builder cannot show (relationships, nesting, _exists) open in JSON mode.
 */
import { useState } from 'react';
import type { DbColumn } from '../api/catalog';
import type { Json, JsonObject } from '../api/metadata';
import { COMPARISON_OPS as OPS, LIST_OPS } from '../api/operators';
import { JsonField } from './ui';


interface Condition {
  column: string;
  op: string;
  value: string;
}

interface Built {
  join: '_and' | '_or';
  conditions: Condition[];
}

const isObj = (v: Json | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

const valueText = (v: Json): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** The builder's form of an expression, or null when it has parts the builder cannot show. */
function toBuilt(exp: Json | undefined, columns: DbColumn[]): Built | null {
  if (exp === undefined || exp === null) return { join: '_and', conditions: [] };
  if (!isObj(exp)) return null;
  const names = new Set(columns.map((c) => c.name));
  const condition = (col: string, cmp: Json): Condition[] | null => {
    if (!names.has(col) || !isObj(cmp)) return null;
    const out: Condition[] = [];
    for (const [op, value] of Object.entries(cmp)) {
      if (!OPS.some(([o]) => o === op)) return null;
      out.push({ column: col, op, value: valueText(value) });
    }
    return out;
  };
  const keys = Object.keys(exp);
  if (keys.length === 1 && (keys[0] === '_and' || keys[0] === '_or')) {
    const list = exp[keys[0]];
    if (!Array.isArray(list)) return null;
    const conditions: Condition[] = [];
    for (const item of list) {
      if (!isObj(item)) return null;
      for (const [col, cmp] of Object.entries(item)) {
        const c = condition(col, cmp);
        if (!c) return null;
        conditions.push(...c);
      }
    }
    return { join: keys[0], conditions };
  }
  const conditions: Condition[] = [];
  for (const [col, cmp] of Object.entries(exp)) {
    const c = condition(col, cmp);
    if (!c) return null;
    conditions.push(...c);
  }
  return { join: '_and', conditions };
}

const isSessionVariable = (text: string): boolean => /^x-svc-/i.test(text.trim());

/** A value as the permission stores it: session variables and text columns stay strings. */
function conditionValue(c: Condition, columns: DbColumn[]): Json {
  const text = c.value.trim();
  if (isSessionVariable(text)) return text;
  const type = columns.find((col) => col.name === c.column)?.type ?? 'text';
  if (c.op === '_is_null') return text !== 'false';
  if (LIST_OPS.has(c.op)) {
    try {
      const parsed = JSON.parse(text) as Json;
      if (Array.isArray(parsed)) return parsed;
    } catch {
      /* a comma list */
    }
    return text.split(',').map((v) => scalar(v.trim(), type));
  }
  return scalar(c.value, type);
}

function scalar(text: string, type: string): Json {
  if (/^(smallint|integer|bigint|real|double precision)$/.test(type) && text.trim() !== '' && !Number.isNaN(Number(text))) return Number(text);
  if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

function fromBuilt(b: Built, columns: DbColumn[]): Json {
  const parts = b.conditions.filter((c) => c.column).map((c) => ({ [c.column]: { [c.op]: conditionValue(c, columns) } }));
  if (parts.length === 0) return {};
  if (parts.length === 1) return parts[0]!;
  return { [b.join]: parts };
}

export function BoolExpEditor({
  value,
  onChange,
  columns,
  testId,
}: {
  value: Json | undefined;
  onChange: (v: Json) => void;
  columns: DbColumn[];
  testId: string;
}) {
  const initial = toBuilt(value, columns);
  const [mode, setMode] = useState<'builder' | 'json'>(initial ? 'builder' : 'json');
  const [built, setBuilt] = useState<Built>(initial ?? { join: '_and', conditions: [] });
  const update = (b: Built) => {
    setBuilt(b);
    onChange(fromBuilt(b, columns));
  };
  return (
    <div className="boolexp" data-testid={testId}>
      <div className="mode">
        <label>
          <input type="radio" checked={mode === 'builder'} onChange={() => {
            const b = toBuilt(value, columns);
            if (b) setBuilt(b);
            setMode('builder');
          }} disabled={!toBuilt(value, columns)} /> builder
        </label>
        <label>
          <input type="radio" checked={mode === 'json'} data-testid={`${testId}-json-mode`} onChange={() => setMode('json')} /> JSON
        </label>
      </div>
      {mode === 'json' ? (
        <JsonField key={JSON.stringify(value)} value={value ?? {}} onChange={onChange} testId={`${testId}-json`} />
      ) : (
        <div className="builder">
          {built.conditions.length === 0 && <p className="muted">Without any checks: every row.</p>}
          {built.conditions.map((c, i) => (
            <div className="row" key={i}>
              {i > 0 && <span className="join">{built.join === '_and' ? 'AND' : 'OR'}</span>}
              <select value={c.column} data-testid={`${testId}-column-${i}`} onChange={(e) => update({ ...built, conditions: built.conditions.map((d, j) => (j === i ? { ...d, column: e.target.value } : d)) })}>
                {columns.map((col) => (
                  <option key={col.name}>{col.name}</option>
                ))}
              </select>
              <select value={c.op} data-testid={`${testId}-op-${i}`} onChange={(e) => update({ ...built, conditions: built.conditions.map((d, j) => (j === i ? { ...d, op: e.target.value } : d)) })}>
                {OPS.map(([op, label]) => (
                  <option key={op} value={op}>
                    {label}
                  </option>
                ))}
              </select>
              <input
                value={c.value}
                list="svc-session-variables"
                placeholder="value or X-Svc-User-Id"
                data-testid={`${testId}-value-${i}`}
                onChange={(e) => update({ ...built, conditions: built.conditions.map((d, j) => (j === i ? { ...d, value: e.target.value } : d)) })}
              />
              <button type="button" className="link" onClick={() => update({ ...built, conditions: built.conditions.filter((_, j) => j !== i) })}>
                ✕
              </button>
            </div>
          ))}
          <datalist id="svc-session-variables">
            <option value="X-Svc-User-Id" />
            <option value="X-Svc-Role" />
          </datalist>
          <div className="row">
            <button type="button" data-testid={`${testId}-add`} onClick={() => update({ ...built, conditions: [...built.conditions, { column: columns[0]?.name ?? '', op: '_eq', value: '' }] })}>
              Add condition
            </button>
            {built.conditions.length > 1 && (
              <select value={built.join} onChange={(e) => update({ ...built, join: e.target.value as Built['join'] })}>
                <option value="_and">all of (AND)</option>
                <option value="_or">any of (OR)</option>
              </select>
            )}
          </div>
        </div>
      )}
    </div>
  );
}
