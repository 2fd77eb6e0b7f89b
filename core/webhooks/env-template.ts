/**
 * `{{ENV_VAR}}` templates in webhook URLs and header values: each `{{NAME}}` is replaced by that
 * environment variable when the engine resolves the webhook, so secrets and hosts stay out of the
 * metadata. Text outside the braces is kept as written.
 */

export class MissingEnvVarError extends Error {
  constructor(readonly variable: string) {
    super(`environment variable '${variable}' not set`);
    this.name = 'MissingEnvVarError';
  }
}

export type EnvLookup = Readonly<Record<string, string | undefined>>;

const PLACEHOLDER = /\{\{([^}]+)\}\}/g;

/** The variables a template names, in order (duplicates kept out). */
export function templateVariables(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1]!.trim()))];
}

/** Replaces every `{{NAME}}`; throws MissingEnvVarError for the first unset one. */
export function resolveEnvTemplate(template: string, env: EnvLookup): string {
  return template.replace(PLACEHOLDER, (_all, raw: string) => {
    const name = raw.trim();
    const value = env[name];
    if (value === undefined) throw new MissingEnvVarError(name);
    return value;
  });
}

/** An environment variable that must be set (`webhook_from_env`, `value_from_env`). */
export function requireEnv(name: string, env: EnvLookup): string {
  const value = env[name];
  if (value === undefined) throw new MissingEnvVarError(name);
  return value;
}
