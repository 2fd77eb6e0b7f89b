/** A CLI failure the user can act on: printed as `error: <message>` with exit code 1, no stack. */
export class ProjectError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'ProjectError';
  }
}

export const isProjectError = (e: unknown): e is ProjectError => e instanceof ProjectError;
