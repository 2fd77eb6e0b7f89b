/**
 * Everything a trigger kind needs to call webhooks, kind-neutral so event triggers, scheduled
 * triggers and actions share it: the template language, request/response transforms,
 * `{{ENV}}` URL templates, configured headers, the retry policy, the delivery itself, cron
 * schedules and the runners' claim-and-deliver loop.
 */
export * from './env-template.js';
export * from './headers.js';
export * from './retry.js';
export * from './cron.js';
export * from './deliver.js';
export * from './delivery-loop.js';
export * from './transform/definition.js';
export * from './transform/apply.js';
export * from './transform/test-transform.js';
export { KritiTemplate, KritiError, type Json, type KritiErrorJson } from './kriti/index.js';
