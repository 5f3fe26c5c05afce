// Reading workflow files for apply / validate / run FILE.
import fs from 'node:fs';
import { AxError } from '../../api/errors.ts';
import type { WorkflowSpec } from '../../api/types.ts';
import { parseWorkflowFile } from '../../core/workflow-file.ts';

export const localTimezone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export function readWorkflowFile(file: string): { spec: WorkflowSpec; warnings: string[] } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new AxError('validation', code === 'ENOENT' ? `${file}: no such file: check the path (it is read relative to ${process.cwd()})` : `${file}: cannot read it (${code ?? String(err)})`);
  }
  return parseWorkflowFile(text, { file, defaultTimezone: localTimezone() });
}

/** "nightly" is a workflow name; "./nightly.yaml" or an existing file is a file. */
export function looksLikeFile(arg: string): boolean {
  return /\.(ya?ml|json)$/i.test(arg) || arg.includes('/') || (fs.existsSync(arg) && fs.statSync(arg).isFile());
}
