/**
 * Configured webhook headers: `{name, value}` (value may hold `{{ENV}}` templates) or
 * `{name, value_from_env}`. Parsed once at metadata time with the reference's messages, resolved
 * against the environment when a webhook is built.
 */
import { EngineError } from '../errors.js';
import { jsonTypeName } from '../json-type.js';
import { resolveEnvTemplate, requireEnv, type EnvLookup } from './env-template.js';

export type HeaderConf = { name: string; value: string } | { name: string; value_from_env: string };

export interface ResolvedHeader {
  name: string;
  value: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseHeaderConfs(value: unknown, path: string): HeaderConf[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new EngineError('parse-failed', `expected Array, but encountered ${jsonTypeName(value)}`, { path });
  return value.map((h, i) => parseHeaderConf(h, `${path}[${i}]`));
}

function parseHeaderConf(h: unknown, path: string): HeaderConf {
  if (!isObject(h)) throw new EngineError('parse-failed', `expected Object, but encountered ${jsonTypeName(h)}`, { path });
  if (typeof h.name !== 'string') {
    throw new EngineError('parse-failed', h.name === undefined ? 'key "name" not found' : `expected String, but encountered ${jsonTypeName(h.name)}`, {
      path: h.name === undefined ? path : `${path}.name`,
    });
  }
  const hasValue = h.value !== undefined;
  const hasEnv = h.value_from_env !== undefined;
  if (hasValue === hasEnv) throw new EngineError('parse-failed', 'expecting value or value_from_env keys', { path });
  const key = hasValue ? 'value' : 'value_from_env';
  const v = h[key];
  if (typeof v !== 'string') throw new EngineError('parse-failed', `expected String, but encountered ${jsonTypeName(v)}`, { path: `${path}.${key}` });
  return hasValue ? { name: h.name, value: v } : { name: h.name, value_from_env: v };
}

/** Throws MissingEnvVarError for an unset variable. */
export function resolveHeaders(confs: readonly HeaderConf[], env: EnvLookup): ResolvedHeader[] {
  return confs.map((h) => ({ name: h.name, value: 'value' in h ? resolveEnvTemplate(h.value, env) : requireEnv(h.value_from_env, env) }));
}
