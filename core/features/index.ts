/**
 * Honest options: a feature is something a plugin enforces (the allow-list, API limits, ...). A
 * plugin names what it enforces in `provides`; an option of config/options.ts names the feature it
 * needs in `feature`, and a metadata section in METADATA_FEATURES below. An option set to a
 * non-default value whose feature no loaded plugin provides stops the engine at boot
 * (E_OPTION_NOT_ENFORCED, naming the option), and such a metadata section is an inconsistent
 * object, so nothing is accepted and silently left unenforced. /v1alpha1/config asks `has` before
 * it reports a feature as on.
 */
import { BootError } from '../errors.js';
import type { ServerConfig } from '../config/types.js';
import {
  EXPERIMENTAL_FEATURE_SUPPORT,
  OPTIONS,
  findOption,
  optionLabel,
  type ExperimentalFeature,
  type ExperimentalSupport,
  type ServerOption,
} from '../../config/options.js';
import type { MetadataDocument, InconsistentObject } from '../metadata/types.js';

/** The features the loaded plugins provide; registered in the container as `features`. */
export class ProvidedFeatures {
  private readonly by = new Map<string, string[]>();

  constructor(plugins: ReadonlyArray<{ readonly provides?: readonly string[]; readonly id: string }>) {
    for (const p of plugins) {
      for (const f of p.provides ?? []) this.by.set(f, [...(this.by.get(f) ?? []), p.id]);
    }
  }

  has(feature: string): boolean {
    return this.by.has(feature);
  }

  /** Feature name → ids of the plugins providing it, for start-up logs. */
  list(): Record<string, readonly string[]> {
    return Object.fromEntries([...this.by].sort(([a], [b]) => a.localeCompare(b)));
  }
}

/** Whether the configured value differs from what the option means when it is not given. */
export function isOptionSet(option: ServerOption, config: ServerConfig): boolean {
  if (option.key.startsWith('connection.')) return false;
  const value = (config as unknown as Record<string, unknown>)[option.key];
  if (value === undefined) return false;
  const kind = option.type.kind;
  // A switch with no default is off when not given: `false` asks for nothing.
  if (option.default === undefined) return !((kind === 'boolean' || kind === 'flag') && value === false);
  return JSON.stringify(value) !== JSON.stringify(option.default);
}

/** Throws E_OPTION_NOT_ENFORCED for the first option set whose feature no loaded plugin provides. */
export function checkOptionsEnforced(config: ServerConfig, features: ProvidedFeatures, options: readonly ServerOption[] = OPTIONS): void {
  const refused = options.filter((o) => o.feature !== undefined && !features.has(o.feature) && isOptionSet(o, config));
  const lines = refused.map((o) => `${optionLabel(o)} needs the '${o.feature}' feature, which no loaded plugin provides`);
  lines.push(...unenforcedExperimentalFeatures(config, features));
  if (lines.length === 0) return;
  throw new BootError(
    'E_OPTION_NOT_ENFORCED',
    `${lines.join('; ')}; so the setting would be ignored: unset it, or load a plugin that provides the feature (--plugin-config)`,
  );
}

/** One line per `--experimental-features` value that nothing would honour. */
function unenforcedExperimentalFeatures(config: ServerConfig, features: ProvidedFeatures): string[] {
  const option = findOption('experimental-features');
  const label = option ? optionLabel(option) : '--experimental-features';
  const lines: string[] = [];
  for (const name of config.experimentalFeatures ?? []) {
    const support: ExperimentalSupport | undefined = EXPERIMENTAL_FEATURE_SUPPORT[name as ExperimentalFeature];
    // Unknown names never get here from the command line (E_OPTION_INVALID); a programmatic config might.
    if (support === undefined) lines.push(`${label} value '${name}' is not an experimental feature of this engine`);
    else if ('feature' in support) {
      if (!features.has(support.feature)) lines.push(`${label} value '${name}' needs the '${support.feature}' feature, which no loaded plugin provides`);
    } else if (!support.built) lines.push(`${label} value '${name}' is not built in this engine`);
  }
  return lines;
}

/**
 * Metadata sections that ask for enforcement, and the feature that enforces them. A section that
 * only stores data (query collections, an allow-list that --enable-allowlist switches on) is not
 * listed: keeping it changes nothing.
 */
export const METADATA_FEATURES = {
  api_limits: 'api-limits',
  graphql_schema_introspection: 'introspection-control',
  cron_triggers: 'scheduled-triggers',
} as const;

function asksForSomething(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value !== 'object') return true;
  const entries = Object.entries(value as Record<string, unknown>);
  if ('disabled' in (value as object) && (value as { disabled?: unknown }).disabled === true) return false;
  return entries.some(([k, v]) => k !== 'disabled' && asksForSomething(v));
}

/** Inconsistent objects for metadata sections whose feature no loaded plugin provides. */
export function unenforcedMetadata(metadata: MetadataDocument, features: ProvidedFeatures): InconsistentObject[] {
  const found: InconsistentObject[] = [];
  for (const [key, feature] of Object.entries(METADATA_FEATURES)) {
    const value = (metadata as unknown as Record<string, unknown>)[key];
    if (features.has(feature) || !asksForSomething(value)) continue;
    found.push({
      type: key,
      name: key,
      definition: value,
      reason: `Inconsistent object: ${key} would not be enforced: no loaded plugin provides the '${feature}' feature`,
    });
  }
  return found;
}
