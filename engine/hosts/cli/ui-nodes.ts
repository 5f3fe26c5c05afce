// Which `ax serve` on this machine serves the UI for a data dir, for `ax open`. A solo engine is
// named by its engine.lock. Team nodes may share a data dir (a scheduler and a worker on one
// machine, say): each writes DATA_DIR/ui-nodes/PID.json while it serves and removes it when it
// stops, so one node stopping never hides another, and `ax open` picks by role: the scheduler
// (it stays: a worker may be drained or a temporary laptop), then a client, then a worker;
// among equals the one started last.
import fs from 'node:fs';
import path from 'node:path';
import { writePrivateFile } from '../node/private-file.ts';

export interface UiNode {
  pid: number;
  port: number;
  /** scheduler, client or worker */
  role: string;
  workerId?: string;
  /** the certificate file of --tls-cert (absolute): its API is https/wss */
  tlsCert?: string;
  startedAt: number;
}

const DIR = 'ui-nodes';
const RANK: Record<string, number> = { scheduler: 0, client: 1, worker: 2 };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Says this process serves the UI on `port`; returns the function that takes it back. */
export function announceUiNode(dataDir: string, node: Omit<UiNode, 'pid' | 'startedAt'>): () => void {
  const dir = path.join(dataDir, DIR);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `${process.pid}.json`);
  writePrivateFile(file, JSON.stringify({ ...node, pid: process.pid, startedAt: Date.now() }));
  return () => fs.rmSync(file, { force: true });
}

/** The live team nodes serving the UI on this data dir, the preferred one first (see above). */
export function uiNodes(dataDir: string): UiNode[] {
  const dir = path.join(dataDir, DIR);
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => /^\d+\.json$/.test(n));
  } catch {
    return [];
  }
  const nodes: UiNode[] = [];
  for (const name of names) {
    try {
      const node = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as UiNode;
      if (Number.isInteger(node.pid) && Number.isInteger(node.port) && alive(node.pid)) nodes.push(node);
    } catch {
      // being written or removed right now: not a node to open
    }
  }
  return nodes.sort((a, b) => (RANK[a.role] ?? 9) - (RANK[b.role] ?? 9) || b.startedAt - a.startedAt);
}

/** "team scheduler (pid 42, port 41234)", "team worker etl-2 (pid 43, port 41235)" */
export function describeUiNode(n: UiNode): string {
  return `team ${n.role}${n.workerId ? ` ${n.workerId}` : ''} (pid ${n.pid}, port ${n.port})`;
}
