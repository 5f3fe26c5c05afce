// Typed errors that say what to fix. They cross the API as { code, message, details }.

export type AxErrorCode =
  | 'validation' // a workflow file or a request is wrong; details lists every problem
  | 'not_found'
  | 'conflict' // e.g. a second engine on the same data dir
  | 'unavailable' // a service or the engine cannot be reached
  | 'storage' // the database cannot be used as it is (read-only, damaged, newer, deleted): a person must act, retrying cannot help
  | 'forbidden' // signed in, but the role, token scope or group does not allow it: the message names what would
  | 'unauthenticated' // no valid session or token: sign in (ax login) first
  | 'environment' // this runtime cannot run AX as installed (no SQLite driver loads): install or switch, then start again
  | 'internal';

export interface ValidationProblem {
  /** the file, when there is one */
  file?: string;
  /** field path, e.g. "tasks.extract.timeout" */
  path: string;
  message: string;
}

export class AxError extends Error {
  constructor(
    readonly code: AxErrorCode,
    message: string,
    readonly problems: ValidationProblem[] = [],
  ) {
    super(message);
    this.name = 'AxError';
  }
}

export function formatProblems(problems: ValidationProblem[]): string {
  return problems.map((p) => `${p.file ? `${p.file}: ` : ''}${p.path ? `${p.path}: ` : ''}${p.message}`).join('\n');
}

export class ValidationError extends AxError {
  constructor(problems: ValidationProblem[]) {
    super('validation', formatProblems(problems), problems);
    this.name = 'ValidationError';
  }
}
