// Following a run until it ends, printing each task's outcome as it happens.
import type { EngineApi } from '../../api/engine-api.ts';
import type { RunRecord } from '../../api/types.ts';
import { elapsed, mark } from './format.ts';

const FINAL_RUN = ['SUCCESS', 'FAILED', 'SKIPPED', 'CANCELLED'];
const SHOWN = ['RUNNING', 'SUCCESS', 'FAILED', 'TIMEOUT', 'CANCELLED', 'UPSTREAM_FAILED'];

export async function waitForRun(api: EngineApi, runId: number, quiet = false, pollMs = 200): Promise<RunRecord> {
  const seen = new Map<number, string>();
  for (;;) {
    const { run, instances } = await api.getRun(runId);
    for (const i of instances) {
      if (seen.get(i.id) === i.state || !SHOWN.includes(i.state)) continue;
      seen.set(i.id, i.state);
      if (quiet) continue;
      const attempt = i.attempt > 1 ? ` (attempt ${i.attempt})` : '';
      const took = i.state === 'RUNNING' ? '' : ` ${elapsed(i.startedAt, i.finishedAt) ?? ''}`;
      const why = i.reason && i.state !== 'SUCCESS' && i.state !== 'RUNNING' ? ` — ${i.reason}` : '';
      console.log(`${mark(i.state)} ${i.taskName}${attempt} ${i.state}${took}  [instance ${i.id}]${why}`);
    }
    if (FINAL_RUN.includes(run.state)) {
      if (!quiet) console.log(`run #${run.id} ${run.state}${run.finishedAt ? ` in ${elapsed(run.createdAt, run.finishedAt)}` : ''}${run.reason ? ` — ${run.reason}` : ''}`);
      return run;
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
