/** Checks a plugin's options against its JSON schema before `register` sees them. */
import { Ajv, type ValidateFunction } from 'ajv';
import { BootError } from '../errors.js';
import { pluginId, type AnyPlugin } from '../plugin.js';

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false });
const compiled = new WeakMap<object, ValidateFunction>();

export function checkPluginOptions(plugin: AnyPlugin, options: unknown): unknown {
  const value = options ?? {};
  if (!plugin.optionsSchema) return value;
  let validate = compiled.get(plugin.optionsSchema);
  if (!validate) {
    validate = ajv.compile(plugin.optionsSchema);
    compiled.set(plugin.optionsSchema, validate);
  }
  if (!validate(value)) {
    const detail = (validate.errors ?? [])
      .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
      .join('; ');
    throw new BootError('E_PLUGIN_OPTIONS_INVALID', `options of plugin '${pluginId(plugin)}' are invalid: ${detail}`);
  }
  return value;
}
