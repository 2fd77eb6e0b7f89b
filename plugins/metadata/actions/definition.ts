/**
 * An action as the metadata stores it (Document 1 §2.11, reference notes §5): `{name, definition,
 * comment?, permissions?}` with the definition's defaults filled in (`kind` synchronous, `type`
 * mutation, `timeout` 30, `forward_client_headers` false, `headers` []), so export shows what
 * applies. Shapes only: types and the handler's environment are checked by the resolver.
 */
import {
  expectObject,
  isGraphQLName,
  jsonTypeName,
  parseFailed,
  parseHeaderConfs,
  parseRequestTransform,
  parseResponseTransform,
  requireKey,
  type ArgsObject,
  type HeaderConf,
  type RequestTransformDefinition,
  type ResponseTransformDefinition,
} from '../../../core/sdk/index.js';
import { parseTypeExpression } from '../custom-types/parse.js';

export interface ActionArgument {
  name: string;
  type: string;
  description?: string;
}

export interface ActionDefinition {
  kind: 'synchronous' | 'asynchronous';
  type: 'query' | 'mutation';
  arguments: ActionArgument[];
  output_type: string;
  handler: string;
  headers: HeaderConf[];
  forward_client_headers: boolean;
  timeout: number;
  request_transform?: RequestTransformDefinition;
  response_transform?: ResponseTransformDefinition;
}

export interface ActionMetadata {
  name: string;
  definition: ActionDefinition;
  comment?: string;
  permissions?: Array<{ role: string; comment?: string }>;
}

export const DEFAULT_ACTION_TIMEOUT = 30;

function optionalString(o: ArgsObject, key: string, path: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  return v;
}

export function requireName(o: ArgsObject, key: string, path: string): string {
  const v = requireKey(o, key, path);
  if (typeof v !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  if (!isGraphQLName(v)) throw parseFailed(`"${v}" is not a valid GraphQL name`, `${path}.${key}`);
  return v;
}

function oneOf<T extends string>(o: ArgsObject, key: string, values: readonly T[], fallback: T, path: string): T {
  const v = o[key] ?? fallback;
  if (!values.includes(v as T)) throw parseFailed(`expected one of ${values.map((x) => `"${x}"`).join(', ')} for "${key}"`, `${path}.${key}`);
  return v as T;
}

export function parseActionDefinition(value: unknown, path: string): ActionDefinition {
  const o = expectObject(value, path);
  const rawArgs = o['arguments'] ?? [];
  if (!Array.isArray(rawArgs)) throw parseFailed(`expected Array, but encountered ${jsonTypeName(rawArgs)}`, `${path}.arguments`);
  const args = rawArgs.map((a, i): ActionArgument => {
    const p = `${path}.arguments[${i}]`;
    const ao = expectObject(a, p);
    const type = requireKey(ao, 'type', p);
    parseTypeExpression(type, `${p}.type`);
    const description = optionalString(ao, 'description', p);
    return { name: requireName(ao, 'name', p), type: type as string, ...(description !== undefined ? { description } : {}) };
  });
  const output = requireKey(o, 'output_type', path);
  parseTypeExpression(output, `${path}.output_type`);
  const handler = requireKey(o, 'handler', path);
  if (typeof handler !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(handler)}`, `${path}.handler`);
  const forward = o['forward_client_headers'] ?? false;
  if (typeof forward !== 'boolean') throw parseFailed(`expected Boolean, but encountered ${jsonTypeName(forward)}`, `${path}.forward_client_headers`);
  const timeout = o['timeout'] ?? DEFAULT_ACTION_TIMEOUT;
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout <= 0) {
    throw parseFailed('timeout must be a positive integer number of seconds', `${path}.timeout`);
  }
  const kind = oneOf(o, 'kind', ['synchronous', 'asynchronous'] as const, 'synchronous', path);
  const type = oneOf(o, 'type', ['query', 'mutation'] as const, 'mutation', path);
  if (kind === 'asynchronous' && type === 'query') throw parseFailed('action of type query cannot be asynchronous', `${path}.kind`);
  const def: ActionDefinition = {
    kind,
    type,
    arguments: args,
    output_type: output as string,
    handler,
    headers: parseHeaderConfs(o['headers'], `${path}.headers`),
    forward_client_headers: forward,
    timeout,
  };
  if (o['request_transform'] !== undefined && o['request_transform'] !== null) {
    def.request_transform = parseRequestTransform(o['request_transform'], `${path}.request_transform`).definition;
  }
  if (o['response_transform'] !== undefined && o['response_transform'] !== null) {
    def.response_transform = parseResponseTransform(o['response_transform'], `${path}.response_transform`).definition;
  }
  return def;
}

/** A stored action (export format). */
export function parseStoredAction(value: unknown, path: string): ActionMetadata {
  const o = expectObject(value, path);
  const comment = optionalString(o, 'comment', path);
  const perms = o['permissions'] ?? [];
  if (!Array.isArray(perms)) throw parseFailed(`expected Array, but encountered ${jsonTypeName(perms)}`, `${path}.permissions`);
  return {
    name: requireName(o, 'name', path),
    definition: parseActionDefinition(requireKey(o, 'definition', path), `${path}.definition`),
    ...(comment !== undefined ? { comment } : {}),
    permissions: perms.map((p, i) => {
      const po = expectObject(p, `${path}.permissions[${i}]`);
      const role = requireKey(po, 'role', `${path}.permissions[${i}]`);
      if (typeof role !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(role)}`, `${path}.permissions[${i}].role`);
      const c = optionalString(po, 'comment', `${path}.permissions[${i}]`);
      return { role, ...(c !== undefined ? { comment: c } : {}) };
    }),
  };
}

export function actionsOf(draft: { actions?: Record<string, unknown>[] }): Record<string, unknown>[] {
  return (draft.actions ??= []);
}
