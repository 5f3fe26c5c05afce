import { describe, it, expect } from 'vitest';
import {
  Router,
  accepts,
  whyNoWorker,
  type AcceptPolicy,
  type WorkerCandidate,
} from '../../engine/core/model/routing.ts';

const NOW = 1_000_000;
const STALE = 15_000;
const any: AcceptPolicy = { labels: [], acceptUnlabelled: true };
const task = { workflowName: 'etl', labels: [] as string[] };

function worker(id: string, over: Partial<WorkerCandidate> = {}): WorkerCandidate {
  return { id, running: 0, maxConcurrency: 8, lastHeartbeat: NOW - 1_000, status: 'online', policy: any, ...over };
}

describe('accepts', () => {
  it('a labelled task needs every one of its labels on the worker', () => {
    const gpu: AcceptPolicy = { labels: ['gpu', 'linux'], acceptUnlabelled: true };
    expect(accepts(gpu, { workflowName: 'w', labels: ['gpu'] })).toBe(true);
    expect(accepts(gpu, { workflowName: 'w', labels: ['gpu', 'linux'] })).toBe(true);
    expect(accepts(gpu, { workflowName: 'w', labels: ['gpu', 'windows'] })).toBe(false);
  });

  it('an unlabelled task only where unlabelled work is accepted', () => {
    expect(accepts({ labels: ['laptop'], acceptUnlabelled: false }, { workflowName: 'w', labels: [] })).toBe(false);
    expect(accepts({ labels: ['laptop'], acceptUnlabelled: true }, { workflowName: 'w', labels: [] })).toBe(true);
  });

  it('a workflow list restricts, its absence does not', () => {
    const only: AcceptPolicy = { labels: [], workflows: ['etl'], acceptUnlabelled: true };
    expect(accepts(only, { workflowName: 'etl', labels: [] })).toBe(true);
    expect(accepts(only, { workflowName: 'billing', labels: [] })).toBe(false);
    expect(accepts(any, { workflowName: 'billing', labels: [] })).toBe(true);
  });
});

describe('Router: who qualifies', () => {
  const pick = (workers: WorkerCandidate[]) =>
    new Router(Math.random).pick('least_busy', task, workers, NOW, STALE)?.id;

  it('skips workers that are not online, have a stale heartbeat, are full, or refuse the task', () => {
    expect(pick([worker('a', { status: 'draining' })])).toBeUndefined();
    expect(pick([worker('a', { status: 'lost' })])).toBeUndefined();
    expect(pick([worker('a', { lastHeartbeat: NOW - STALE })])).toBeUndefined();
    expect(pick([worker('a', { lastHeartbeat: NOW - STALE + 1 })])).toBe('a');
    expect(pick([worker('a', { running: 8 })])).toBeUndefined();
    expect(pick([worker('a', { running: 7 })])).toBe('a');
    expect(pick([worker('a', { policy: { labels: [], acceptUnlabelled: false } })])).toBeUndefined();
    expect(pick([worker('a', { status: 'draining' }), worker('b', { running: 3 })])).toBe('b');
  });
});

describe('Router: strategies', () => {
  it('round_robin cycles through qualifying workers in id order, whatever the input order', () => {
    const router = new Router(Math.random);
    const workers = [worker('c'), worker('a'), worker('b')];
    const picks = Array.from({ length: 5 }, () => router.pick('round_robin', task, workers, NOW, STALE)?.id);
    expect(picks).toEqual(['a', 'b', 'c', 'a', 'b']);
  });

  it('round_robin continues after the last pick when workers join, leave or fill up', () => {
    const router = new Router(Math.random);
    const rr = (workers: WorkerCandidate[]) => router.pick('round_robin', task, workers, NOW, STALE)?.id;
    expect(rr([worker('a'), worker('b'), worker('c')])).toBe('a');
    expect(rr([worker('a'), worker('ab'), worker('b'), worker('c')])).toBe('ab');
    expect(rr([worker('a'), worker('b', { running: 8 }), worker('c')])).toBe('c');
    expect(rr([worker('a'), worker('b')])).toBe('a');
  });

  it('round_robin keeps a separate rotation per task requirement', () => {
    const router = new Router(Math.random);
    const gpu = { labels: ['gpu'], acceptUnlabelled: true };
    const workers = [worker('a', { policy: gpu }), worker('b'), worker('c', { policy: gpu })];
    const gpuTask = { workflowName: 'etl', labels: ['gpu'] };
    const seq = [task, gpuTask, task, gpuTask, task].map((t) => router.pick('round_robin', t, workers, NOW, STALE)?.id);
    // One shared cursor would give a, c, a, c, a and starve b.
    expect(seq).toEqual(['a', 'a', 'b', 'c', 'c']);
  });

  it('random indexes the id-sorted qualifying workers with the injected random', () => {
    const workers = [worker('c'), worker('a'), worker('b', { running: 8 }), worker('d')];
    const pickWith = (r: number) => new Router(() => r).pick('random', task, workers, NOW, STALE)?.id;
    expect([0, 0.34, 0.67, 0.999999].map(pickWith)).toEqual(['a', 'c', 'd', 'd']);
  });

  it('least_busy picks the lowest running/max, ties to the lowest id', () => {
    const router = new Router(Math.random);
    const lb = (workers: WorkerCandidate[]) => router.pick('least_busy', task, workers, NOW, STALE)?.id;
    expect(lb([worker('a', { running: 1, maxConcurrency: 2 }), worker('b', { running: 2, maxConcurrency: 8 })])).toBe(
      'b',
    );
    expect(lb([worker('b', { running: 1, maxConcurrency: 4 }), worker('a', { running: 2, maxConcurrency: 8 })])).toBe(
      'a',
    );
    expect(lb([worker('a', { running: 4, maxConcurrency: 4 }), worker('b', { running: 19, maxConcurrency: 20 })])).toBe(
      'b',
    );
  });
});

describe('whyNoWorker', () => {
  // The dispatcher shows it as "waiting: …"; the cases below read what follows.
  const why = (workers: WorkerCandidate[], t = task) =>
    whyNoWorker(t, workers, NOW, STALE).reason.replace(/^waiting: /, '');

  it('says what stands in the way, in the order a user would check', () => {
    expect(why([])).toBe('no worker is registered: start one (ax serve) or join a machine as a worker');
    expect(why([worker('a', { status: 'lost' }), worker('b', { status: 'draining' })])).toBe(
      'none of the 2 workers is online (draining, lost)',
    );
    expect(why([worker('a', { lastHeartbeat: NOW - 42_000 })])).toBe(
      "every online worker's heartbeat is stale (newest 42s old, limit 15s)",
    );
    expect(why([worker('a', { policy: { labels: [], workflows: ['billing'], acceptUnlabelled: true } })])).toBe(
      'no online worker accepts workflow "etl": add it to a worker\'s accept-policy',
    );
  });

  it('names the labels nobody offers, or the unlabelled-task refusal', () => {
    const cpu = { labels: ['linux'], acceptUnlabelled: false };
    expect(
      why(
        [
          worker('a', { policy: cpu }),
          worker('b', { status: 'lost', policy: { labels: ['gpu'], acceptUnlabelled: true } }),
        ],
        { workflowName: 'etl', labels: ['gpu'] },
      ),
    ).toBe("no online worker accepts labels [gpu]: add them to a worker's labels or remove them from the task");
    expect(why([worker('a', { policy: cpu })])).toBe(
      'no online worker accepts unlabelled tasks: label the task or let a worker accept unlabelled tasks',
    );
  });

  it('reports full workers, counting only those that accept the task', () => {
    const refuses = { labels: [], acceptUnlabelled: false };
    expect(
      why([
        worker('a', { running: 8 }),
        worker('b', { running: 2, maxConcurrency: 2 }),
        worker('c', { policy: refuses }),
      ]),
    ).toBe('all 2 workers are at their concurrency limit');
    expect(why([worker('a', { running: 8 })])).toBe('the only worker that accepts it (a) is at its concurrency limit');
    expect(why([worker('b'), worker('a', { running: 1 })])).toBe('worker a can take it');
  });
});
