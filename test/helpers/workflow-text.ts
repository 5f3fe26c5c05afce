// Workflow files and specs as the unit tests of the workflow file write them: a parse in a fixed
// default zone, the problems of a file that must not parse, a one-task file with extra lines, and
// a task spec with the defaults a parsed file gets.
import { expect } from 'vitest';
import { ValidationError, type ValidationProblem } from '../../engine/api/errors.ts';
import type { TaskSpec } from '../../engine/api/types.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';

export const opts = { defaultTimezone: 'Europe/Berlin' };
export const parse = (text: string) => parseWorkflowFile(text, opts);

/** The problems a file produces (fails the test if it parses). */
export function problems(text: string, file?: string): ValidationProblem[] {
  try {
    parseWorkflowFile(text, { ...opts, file });
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).problems;
  }
  throw new Error('expected a ValidationError');
}

/** A valid file with one task, plus extra lines for that task (indented 4). */
export const oneTask = (...lines: string[]) =>
  ['workflow: w', 'tasks:', '  extract:', '    command: ./extract.sh', ...lines.map((l) => `    ${l}`)].join('\n');

/** A task spec with a parsed file's defaults, and what the test sets. */
export const task = (name: string, extra: Partial<TaskSpec> = {}): TaskSpec => ({
  name,
  command: `./${name}.sh`,
  env: {},
  retries: 0,
  retryBackoff: { kind: 'fixed', delayMs: 10_000, maxDelayMs: 10_000 },
  labels: [],
  upstream: [],
  ...extra,
});
