// A node starting on a shared data dir, for test/integration/node-identity.test.ts: waits until
// the file named by its second argument exists (so all children start at one instant), then
// prints this node's key, default worker id and API token on the data dir, or the error it got, and holds
// its worker slot until its stdin ends.
import fs from 'node:fs';
import { apiToken } from '../../engine/hosts/node/data-dir.ts';
import { defaultWorkerId, nodeKey } from '../../engine/hosts/node/node-identity.ts';

const [dataDir = '', go = ''] = process.argv.slice(2);
const pause = new Int32Array(new SharedArrayBuffer(4));
while (!fs.existsSync(go)) Atomics.wait(pause, 0, 0, 1);
try {
  const key = nodeKey(dataDir);
  const slot = defaultWorkerId(dataDir);
  const token = apiToken(dataDir);
  process.stdout.write(`${JSON.stringify({ key, id: slot.id, token })}\n`);
} catch (err) {
  process.stdout.write(`${JSON.stringify({ error: (err as Error).message })}\n`);
}
process.stdin.resume();
