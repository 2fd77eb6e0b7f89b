/**
 * The gate in front of `onRequestLimit`. Most deployments set no limit at all, and the hook's
 * taps are there whether or not their metadata asks for anything; running them would cost every
 * request a context object and a promise per tap. So an enforcer declares when it has work
 * (`whenActive`, a predicate over a schema-cache snapshot and the server config), the gate asks
 * the predicates once per snapshot, and the executor skips the hook for snapshots where none is
 * active. A tap without a declaration is always active: third-party enforcers need not know.
 */
import { asValue, type AwilixContainer } from 'awilix';
import type { KernelHooks } from '../../hooks.js';
import type { SchemaCache } from '../../schema-cache/cache.js';

export type ActivePredicate = (cache: SchemaCache) => boolean;

const ACTIVATIONS_KEY = 'limitActivations';

function activations(container: AwilixContainer): Map<string, ActivePredicate> {
  if (!container.hasRegistration(ACTIVATIONS_KEY)) container.register(ACTIVATIONS_KEY, asValue(new Map<string, ActivePredicate>()));
  return container.resolve<Map<string, ActivePredicate>>(ACTIVATIONS_KEY);
}

/** Declares when the `onRequestLimit` tap named `tapName` (the plugin id) has anything to check. */
export function whenActive(container: AwilixContainer, tapName: string, predicate: ActivePredicate): void {
  activations(container).set(tapName, predicate);
}

export class LimitGate {
  private version = -1;
  private active = false;

  constructor(
    private readonly hooks: KernelHooks,
    private readonly predicates: ReadonlyMap<string, ActivePredicate>,
  ) {}

  static forContainer(container: AwilixContainer, hooks: KernelHooks): LimitGate {
    return new LimitGate(hooks, activations(container));
  }

  /** Whether any enforcer has work for this snapshot; computed once per snapshot version. */
  isActive(cache: SchemaCache): boolean {
    if (cache.version === this.version) return this.active;
    const taps = this.hooks.onRequestLimit.taps;
    this.active = taps.some((t) => {
      const predicate = this.predicates.get(t.name);
      return predicate === undefined || predicate(cache);
    });
    this.version = cache.version;
    return this.active;
  }
}
