// A monitor's runs as they are reported from outside (design.md §13): a `start` creates a RUNNING
// run with one instance named after the monitor; an end (success, failure, exit code) finishes the
// run it names, else the oldest one still running, else records a run that started and ended at
// once. The end goes through RunManager.finish like any outcome, so history, alerts and metrics
// see it as they see every run. A reported log becomes the instance's log, its last
// MAX_PING_LOG_BYTES kept.
import { because } from '../../api/reasons.ts';
import { AxError } from '../../api/errors.ts';
import { MAX_PING_LOG_BYTES, type PingAnswer, type PingReport } from '../../api/monitors.ts';
import type { InstanceRecord, LogLine, RunRecord } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Coordinator } from '../../ports/coordinator.ts';
import type { DefinitionStore, InstanceStore, LogStore, RunStore } from '../../ports/store.ts';
import type { RunManager } from './run-manager.ts';
import type { WorkflowCache } from '../workflow/workflow-cache.ts';

/** Log lines published live for followers; the rest are read from the store. */
const LIVE_LINES = 1000;

/** The last `max` bytes of a text, cut at a line start where there is one; undefined when it fits. */
export function cutLog(text: string, max = MAX_PING_LOG_BYTES): { kept: string; cutBytes: number } | undefined {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= max) return undefined;
  let from = bytes.length - max;
  // not inside a UTF-8 sequence
  while (from < bytes.length && ((bytes[from] as number) & 0xc0) === 0x80) from++;
  let kept = new TextDecoder().decode(bytes.subarray(from));
  const newline = kept.indexOf('\n');
  if (newline >= 0 && newline < kept.length - 1) {
    from += new TextEncoder().encode(kept.slice(0, newline + 1)).length;
    kept = kept.slice(newline + 1);
  }
  return { kept, cutBytes: from };
}

export class ExternalRuns {
  constructor(
    private readonly store: RunStore & InstanceStore & LogStore & DefinitionStore,
    private readonly runs: RunManager,
    private readonly workflows: WorkflowCache,
    private readonly coordinator: Coordinator,
    private readonly clock: Clock,
    /** told of every run a ping ended (the duration rule) */
    private readonly onEnded: (run: RunRecord) => void = () => undefined,
  ) {}

  async ping(name: string, report: PingReport): Promise<PingAnswer> {
    const workflowId = await this.store.findWorkflowId(name);
    const wf = workflowId === undefined ? undefined : await this.workflows.get(workflowId);
    if (!wf)
      throw new AxError(
        'not_found',
        `no workflow "${name}": apply a monitor of that name first (a file with "workflow: ${name}", its schedule and "monitor: { grace: 10m }")`,
      );
    if (wf.graph.schedule?.monitorGraceMs === undefined)
      throw new AxError(
        'validation',
        `"${name}" is not a monitor: AX runs its tasks itself. Pings are for a monitor, a workflow with "monitor:" and no tasks`,
      );
    if (report.what === 'exit' && (report.exitCode === undefined || !Number.isInteger(report.exitCode)))
      throw new AxError('validation', 'an exit ping needs its exit code, a whole number (0 is a success)');
    const now = this.clock.now();
    const ended =
      report.what === 'success' || (report.what === 'exit' && report.exitCode === 0)
        ? 'SUCCESS'
        : report.what === 'start'
          ? undefined
          : 'FAILED';
    const exitCode = report.what === 'exit' ? report.exitCode : undefined;
    const why =
      ended !== 'FAILED'
        ? undefined
        : exitCode !== undefined
          ? because('reported_exit', { code: exitCode, from: report.from })
          : because('reported_failure', { from: report.from });

    const target = ended ? await this.runningRun(wf.graph.id, name, report.runId) : undefined;
    if (!ended || !target) {
      const started = await this.store.startExternalRun({
        workflowId: wf.graph.id,
        taskName: name,
        triggeredBy: report.from,
        startedAt: now,
        state: ended ?? 'RUNNING',
        ...(ended && { finishedAt: now }),
        ...(exitCode !== undefined && { exitCode }),
        ...why,
        logicalTime: now,
      });
      if (!started) throw new AxError('conflict', `a run of "${name}" at this time already exists: ping again`);
      const logCut = await this.appendLog(started.instance.id, report.log);
      const result = { done: true, created: [], ended: [], runs: [started.run] };
      if (ended) await this.runs.publish({ ...result, ended: [started.instance] });
      else {
        await this.runs.publishInstance(started.instance);
        await this.runs.publish(result);
      }
      if (ended) this.onEnded(started.run);
      return { run: started.run, instanceId: started.instance.id, ...(logCut && { logCut }) };
    }
    // Written before the end, so whoever hears the run end finds its log.
    const logCut = await this.appendLog(target.id, report.log);
    const done = await this.runs.finish(target, { from: ['RUNNING'], attempt: target.attempt }, ended, {
      ...(why ?? { reason: null }),
      ...(exitCode !== undefined && { exitCode }),
      finishedAt: now,
    });
    const run = (await this.store.getRun(target.runId)) as RunRecord;
    if (!done) throw new AxError('conflict', `run #${target.runId} of "${name}" ended meanwhile (${run.state})`);
    this.onEnded(run);
    return { run, instanceId: target.id, ...(logCut && { logCut }) };
  }

  /** The instance an end goes to: the named run's (which must be this monitor's and running), else the oldest running one. */
  private async runningRun(workflowId: number, name: string, runId?: number): Promise<InstanceRecord | undefined> {
    if (runId !== undefined) {
      const run = await this.store.getRun(runId);
      if (run?.workflowId !== workflowId || run.trigger !== 'external')
        throw new AxError('not_found', `run #${runId} is not a run of the monitor "${name}"`);
      if (run.state !== 'RUNNING')
        throw new AxError(
          'conflict',
          `run #${runId} of "${name}" already ended ${run.state}${run.reason ? ` (${run.reason})` : ''}`,
        );
      return (await this.store.listInstances(runId)).find((i) => i.state === 'RUNNING');
    }
    const running = await this.store.listRuns({ workflowName: name, states: ['RUNNING'], limit: 100 });
    const oldest = running.filter((r) => r.trigger === 'external').at(-1);
    if (!oldest) return undefined;
    return (await this.store.listInstances(oldest.id)).find((i) => i.state === 'RUNNING');
  }

  /** The reported output as the instance's log lines; true when it had to be cut. */
  private async appendLog(instanceId: number, text: string | undefined): Promise<boolean> {
    if (text === undefined || text === '') return false;
    const cut = cutLog(text);
    const now = this.clock.now();
    const { lastSeq } = await this.store.logExtent(instanceId);
    const body = (cut ? cut.kept : text).replace(/\r?\n$/, '').split(/\r?\n/);
    const lines: LogLine[] = [
      ...(cut
        ? [
            {
              line: `[ax] the first ${formatBytes(cut.cutBytes)} of this output were cut: a reported log keeps its last ${formatBytes(MAX_PING_LOG_BYTES)}`,
              stream: 'system' as const,
            },
          ]
        : []),
      ...body.map((line) => ({ line, stream: 'stdout' as const })),
    ].map((l, i) => ({ instanceId, seq: lastSeq + 1 + i, ts: now, ...l }));
    await this.store.appendLogs(lines);
    for (const line of lines.slice(0, LIVE_LINES))
      await this.coordinator.publish({ type: 'log', ...line }).catch(() => undefined);
    return cut !== undefined;
  }
}

const formatBytes = (n: number): string =>
  n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} bytes`;
