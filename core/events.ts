/**
 * Notifications on the `onEvent` hook, tagged by `type` ('<domain>.<pastTense>'). Taps run in
 * order and their results are ignored; long work is queued, not done inline.
 */
import type { SchemaCache } from './schema-cache/cache.js';

export type PlatformEvent =
  /**
   * `background`: this process runs the engine's background work (event delivery, scheduled
   * triggers, async actions, cleanups); false in workers 2..N of --workers, which only serve.
   */
  | { type: 'server.started'; host: string; port: number; background: boolean }
  | { type: 'shutdown.started'; reason: string }
  | { type: 'metadata.changed'; resourceVersion: number; origin: 'local' | 'remote' }
  | { type: 'schema-cache.rebuilt'; cache: SchemaCache };
