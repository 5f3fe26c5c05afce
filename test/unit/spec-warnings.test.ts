import { describe, expect, it } from 'vitest';
import type { WorkerRecord, WorkflowSpec } from '../../engine/api/types.ts';
import { environmentWarnings } from '../../engine/core/workflow/spec-warnings.ts';
import { task } from '../helpers/workflow-text.ts';

describe('environmentWarnings: what would keep a valid workflow from running here', () => {
  const worker = (id: string, labels: string[]): WorkerRecord => ({
    id,
    host: 'h',
    pid: 1,
    version: '1',
    labels,
    maxConcurrency: 8,
    running: 0,
    startedAt: 0,
    lastHeartbeat: 0,
    status: 'lost',
    acceptUnlabelled: true,
  });
  const spec: WorkflowSpec = {
    name: 'w',
    routing: 'round_robin',
    tasks: [
      task('train', { labels: ['gpu', 'big'] }),
      task('prep', { cwd: '/missing' }),
      task('load', { labels: ['gpu'], cwd: '/here' }),
    ],
  };
  const checkCwd = (cwd: string) => (cwd === '/here' ? undefined : 'does not exist on this machine');

  it('solo: any label, and a cwd that does not exist', () => {
    expect(environmentWarnings(spec, [worker('local', [])], 'solo', checkCwd, 'w.yaml')).toEqual([
      {
        file: 'w.yaml',
        path: 'tasks.train.labels',
        message:
          'no worker offers labels [gpu, big]: the solo worker offers none, so the task would wait forever; remove the labels, or run the workflow in team mode on a worker started with --labels gpu,big',
      },
      {
        file: 'w.yaml',
        path: 'tasks.prep.cwd',
        message: '"/missing" does not exist on this machine: the task would fail to start; create it or fix the path',
      },
      { file: 'w.yaml', path: 'tasks.load.labels', message: expect.stringContaining('no worker offers labels [gpu]') },
    ]);
  });

  it('team: labels that no known worker offers, even a lost one; a cwd is not checked (tasks run elsewhere)', () => {
    const workers = [worker('etl-1', ['gpu']), worker('laptop', [])];
    expect(environmentWarnings(spec, workers, 'team')).toEqual([
      {
        path: 'tasks.train.labels',
        message:
          'no known worker offers labels [gpu, big] (workers: etl-1 [gpu], laptop [no labels]): the task would wait until one joins; start one with "ax serve --role worker --labels gpu,big"',
      },
    ]);
    expect(environmentWarnings(spec, [worker('etl-1', ['big', 'gpu'])], 'team')).toEqual([]);
    expect(environmentWarnings(spec, [], 'team')[0]?.message).toContain('(workers: none has registered yet)');
  });
});
