// Task outputs (what a task wrote to $AX_OUTPUT) as the CLI shows them: `ax runs RUN` after its
// table, `ax logs` after the log. Values are escaped for the terminal, each on its own line.
import type { InstanceRecord } from '../../api/types.ts';
import { terminalSafe } from '../../core/model/terminal-text.ts';

/** `KEY=VALUE` lines, indented; none without outputs. */
export function outputLines(outputs: Record<string, string> | undefined, indent = '  '): string[] {
  return Object.entries(outputs ?? {}).map(([k, v]) => `${indent}${terminalSafe(k)}=${terminalSafe(v)}`);
}

/** The outputs block of a run's instances: each instance with outputs, then its KEY=VALUE lines. */
export function runOutputsBlock(instances: InstanceRecord[]): string[] {
  const withOutputs = instances.filter((i) => Object.keys(i.outputs ?? {}).length > 0);
  if (withOutputs.length === 0) return [];
  return [
    'outputs:',
    ...withOutputs.flatMap((i) => [
      `  ${terminalSafe(i.taskName)} (instance ${i.id}, attempt ${i.attempt}):`,
      ...outputLines(i.outputs, '    '),
    ]),
  ];
}
