// `ax serve` on a port another process holds: the engine had started before the server failed to
// listen, and serve then hung on with no API and the data dir held. It now says what to do, exits
// 4 and lets go of the data dir (the next serve starts).
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ax, cliSandbox } from '../helpers/ax.ts';
import { startServe } from '../helpers/serve.ts';

const box = cliSandbox('ax-serve-port-');

describe('ax serve on a port in use', () => {
  const holder = net.createServer();
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

  it('exits 4 naming the port and what to do, and releases the data dir', async () => {
    const r = await ax(['serve', '--port', String(port)], { ...box.opts(), timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`cannot listen on 127.0.0.1:${port}: another process uses that port`);
    // the data dir is free again: a serve on a free port starts on it
    const served = await startServe(box.opts());
    expect(served.port).toBeGreaterThan(0);
  });
});
