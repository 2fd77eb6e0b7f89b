/**
 * Source operations: add, update, drop and rename. The configuration is checked by the database
 * kind plugin serving the operation's prefix; whether the database can be reached is checked by
 * rebuilding, so an unreachable database fails the operation the way the reference does
 * (`invalid-configuration` with the source's inconsistency).
 */
import {
  ARGS_PATH,
  argsObject,
  type ArgsObject,
  assertConsistent,
  dependencyError,
  EngineError,
  isPlainObject,
  type MetadataDocument,
  type MetadataOperation,
  type OperationContext,
  type OperationResult,
  optionalBoolean,
  removeDependents,
  requireKey,
  requireSource,
  requireString,
  sourceDependents,
  type SourceMetadata,
  SUCCESS,
} from '../../../core/sdk/index.js';
import { parseSourceCustomization } from './customization.js';
import { applyHealthCheckArg } from './health-check.js';

const sourceObject = (name: string): string => `source ${name}`;

function customizationArg(args: ArgsObject): SourceMetadata['customization'] | undefined {
  const c = args.customization;
  if (c === undefined || c === null) return undefined;
  return parseSourceCustomization(c, `${ARGS_PATH}.customization`);
}

export async function addSource(prefix: string, op: MetadataOperation, ctx: OperationContext): Promise<OperationResult> {
  const args = argsObject(op.args);
  const name = requireString(args, 'name', ARGS_PATH);
  const configuration = requireKey(args, 'configuration', ARGS_PATH);
  const replace = optionalBoolean(args, 'replace_configuration', ARGS_PATH, false);
  const customization = customizationArg(args);
  const kind = ctx.dbKind(prefix);
  kind.validateConfiguration(configuration, `${ARGS_PATH}.configuration`);
  const existing = ctx.draft.sources.find((s) => s.name === name);
  if (existing && !replace) throw new EngineError('already-exists', `source with name "${name}" already exists`, { path: ARGS_PATH });
  if (existing) {
    existing.configuration = configuration as Record<string, unknown>;
    if (customization) existing.customization = customization;
    else delete existing.customization;
    applyHealthCheckArg(existing, args, ARGS_PATH);
  } else {
    const source: SourceMetadata = { name, kind: kind.kind, tables: [], configuration: configuration as Record<string, unknown> };
    if (customization) source.customization = customization;
    applyHealthCheckArg(source, args, ARGS_PATH);
    ctx.draft.sources.push(source);
  }
  ctx.markChanged();
  await assertConsistent(ctx, [sourceObject(name)]);
  return SUCCESS;
}

export async function updateSource(prefix: string, op: MetadataOperation, ctx: OperationContext): Promise<OperationResult> {
  const args = argsObject(op.args);
  const name = requireString(args, 'name', ARGS_PATH);
  const customization = customizationArg(args);
  const kind = ctx.dbKind(prefix);
  const hasConfiguration = args.configuration !== undefined && args.configuration !== null;
  if (hasConfiguration) kind.validateConfiguration(args.configuration, `${ARGS_PATH}.configuration`);
  const source = requireSource(ctx.draft, name, ARGS_PATH);
  if (source.kind !== kind.kind) {
    throw new EngineError(
      'not-exists',
      `source with name "${name}" has backend type "${source.kind}" which does not match the expected type ${kind.kind}`,
      { path: ARGS_PATH },
    );
  }
  if (hasConfiguration) source.configuration = args.configuration as Record<string, unknown>;
  if (customization) source.customization = customization;
  applyHealthCheckArg(source, args, ARGS_PATH);
  ctx.markChanged();
  await assertConsistent(ctx, [sourceObject(name)]);
  return SUCCESS;
}

export async function dropSource(prefix: string, op: MetadataOperation, ctx: OperationContext): Promise<OperationResult> {
  const args = argsObject(op.args);
  const name = requireString(args, 'name', ARGS_PATH);
  const cascade = optionalBoolean(args, 'cascade', ARGS_PATH, false);
  ctx.dbKind(prefix);
  requireSource(ctx.draft, name, ARGS_PATH);
  // The source's own tables go with it; only metadata of other sources pointing here is a dependent.
  const dependents = sourceDependents(ctx.draft, name);
  if (dependents.length > 0 && !cascade) throw dependencyError(dependents, ARGS_PATH);
  removeDependents(ctx.draft, dependents);
  ctx.draft.sources = ctx.draft.sources.filter((s) => s.name !== name);
  ctx.markChanged();
  return SUCCESS;
}

/** Points remote relationships of every source at the renamed source. */
function renameSourceReferences(doc: MetadataDocument, from: string, to: string): void {
  for (const s of doc.sources) {
    for (const t of s.tables) {
      for (const rr of t.remote_relationships ?? []) {
        const def = rr.definition;
        const toSource = isPlainObject(def) ? def.to_source : undefined;
        if (isPlainObject(toSource) && toSource.source === from) toSource.source = to;
      }
    }
  }
}

export async function renameSource(op: MetadataOperation, ctx: OperationContext): Promise<OperationResult> {
  const args = argsObject(op.args);
  const name = requireString(args, 'name', ARGS_PATH);
  const newName = requireString(args, 'new_name', ARGS_PATH);
  const source = ctx.draft.sources.find((s) => s.name === name);
  if (!source) throw new EngineError('not-exists', `Could not find source with name "${name}"`, { path: ARGS_PATH });
  if (ctx.draft.sources.some((s) => s.name === newName)) {
    throw new EngineError('already-exists', `Source with name "${newName}" already exists`, { path: ARGS_PATH });
  }
  source.name = newName;
  renameSourceReferences(ctx.draft, name, newName);
  ctx.markChanged();
  await assertConsistent(ctx, [sourceObject(newName)]);
  return SUCCESS;
}
