// The process runner an engine on this machine runs its tasks with.
import { LauncherProcessRunner } from '../../adapters/process/launcher-process-runner.ts';
import { NodeProcessRunner } from '../../adapters/process/node-process-runner.ts';
import type { ProcessRunner } from '../../ports/process-runner.ts';
import type { RunAsUser } from './task-env.ts';

/**
 * Launchers on Unix (see launcher-process-runner.ts). On Windows the engine spawns directly:
 * there are no process groups to hand over and the tree-kill (taskkill) works from the engine;
 * Windows has no fork, so a spawn's cost does not grow with the engine's heap either.
 */
export function taskRunner(killGraceMs: number, onAlert?: (message: string) => void, runAs?: RunAsUser): ProcessRunner {
  return process.platform === 'win32'
    ? new NodeProcessRunner()
    : new LauncherProcessRunner({ killGraceMs, onAlert, runAs });
}
