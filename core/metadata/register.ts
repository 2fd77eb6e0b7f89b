/**
 * The one way metadata plugins register operations. A plugin names its operations without a
 * prefix (`track_table`); once every plugin is registered, the kernel knows the loaded database
 * kinds and each neutral name becomes `<prefix>_<name>` for every kind whose capabilities allow
 * it. A third-party kind with a new prefix therefore gets the generic operations without any
 * change to the metadata plugins. Legacy `/v1/query` names act on the `pg` kind; unprefixed
 * operations (`export_metadata`, `rename_source`) need no kind at all. A handler answers only on
 * its own endpoints, so a name sent to another endpoint stays an unknown operation.
 */
import type { KernelHooks } from '../hooks.js';
import type { DatabaseKind, KindCapability } from '../db/contract.js';
import { argsObject, LEGACY_PREFIX, type ArgsObject } from './args.js';
import type { MetadataEndpoint, MetadataOperation, OperationContext, OperationResult } from './operation.js';

/** A handler of a per-kind operation: `prefix` is the kind's prefix (`pg` for legacy names). */
export type PrefixedHandler = (
  ctx: OperationContext,
  args: ArgsObject,
  prefix: string,
  op: MetadataOperation,
) => Promise<OperationResult>;

/** A handler of an operation served under its own name; it reads `op.args` itself. */
export type OperationHandler = (op: MetadataOperation, ctx: OperationContext) => OperationResult | Promise<OperationResult>;

export interface OperationSet {
  /** Served as `<prefix>_<name>` for every loaded kind that has `requires`. */
  prefixed?: Readonly<Record<string, PrefixedHandler>>;
  /**
   * Served under their own name for the `pg` kind (when it is loaded and has `requires`), the
   * legacy `/v1/query` forms. Defaults to the `prefixed` set; `false` for none.
   */
  legacy?: Readonly<Record<string, PrefixedHandler>> | false;
  /** Served under their own name whatever kinds are loaded. */
  unprefixed?: Readonly<Record<string, OperationHandler>>;
  /** The capability a kind must declare for the `prefixed` and `legacy` names to exist. */
  requires?: KindCapability;
  /** Where each group answers: prefixed on `metadata`, legacy on `query`, unprefixed on `metadata` unless told. */
  endpoints?: {
    prefixed?: readonly MetadataEndpoint[];
    legacy?: readonly MetadataEndpoint[];
    unprefixed?: readonly MetadataEndpoint[];
  };
}

const hasCapability = (kind: DatabaseKind, capability: KindCapability | undefined): boolean =>
  capability === undefined || kind.capabilities?.[capability] === true;

/** The prefixed operation types a set produces for these kinds (for listings and tests). */
export function prefixedOperationTypes(set: OperationSet, kinds: readonly DatabaseKind[]): string[] {
  const names = Object.keys(set.prefixed ?? {});
  return kinds.filter((k) => hasCapability(k, set.requires)).flatMap((k) => names.map((n) => `${k.prefix}_${n}`));
}

export function registerMetadataOperations(hooks: KernelHooks, pluginId: string, set: OperationSet): void {
  const on = (type: string, endpoints: readonly MetadataEndpoint[], run: (op: MetadataOperation, ctx: OperationContext) => Promise<OperationResult>) =>
    hooks.onMetadataOperation.for(type).tapPromise(pluginId, async (op, ctx) => (endpoints.includes(ctx.endpoint) ? run(op, ctx) : undefined));
  const prefixedRun = (handler: PrefixedHandler, prefix: string) => (op: MetadataOperation, ctx: OperationContext) =>
    handler(ctx, argsObject(op.args), prefix, op);

  for (const [name, handler] of Object.entries(set.unprefixed ?? {})) {
    on(name, set.endpoints?.unprefixed ?? ['metadata'], async (op, ctx) => handler(op, ctx));
  }
  if (!set.prefixed && !set.legacy) return;
  // Kinds are known only once every plugin is registered (a kind may be loaded after us).
  hooks.onPluginsRegistered.tap(pluginId, ({ kinds }) => {
    for (const kind of kinds) {
      if (!hasCapability(kind, set.requires)) continue;
      for (const [name, handler] of Object.entries(set.prefixed ?? {})) {
        on(`${kind.prefix}_${name}`, set.endpoints?.prefixed ?? ['metadata'], prefixedRun(handler, kind.prefix));
      }
      if (kind.prefix !== LEGACY_PREFIX || set.legacy === false) continue;
      for (const [name, handler] of Object.entries(set.legacy ?? set.prefixed ?? {})) {
        on(name, set.endpoints?.legacy ?? ['query'], prefixedRun(handler, LEGACY_PREFIX));
      }
    }
  });
}
