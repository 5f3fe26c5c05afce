// The owner of a local TCP connection's client end, from the kernel's socket table: the address
// encoding /proc/net/tcp and tcp6 use, a table and a passwd file read as text, and real loopback
// connections made here (their client end is ours), over IPv4 and, where the machine has it, ::1.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  passwdName,
  peerUid,
  peerUser,
  procSocketAddress,
  socketOwner,
  userName,
} from '../../engine/server/peer-uid.ts';

const HAS_PROC_NET = fs.existsSync('/proc/net/tcp');

describe('procSocketAddress', () => {
  it('writes IPv4 as one 32-bit word in the machine byte order, the port in hex', () => {
    expect(procSocketAddress('127.0.0.1', 22, true)).toBe('0100007F:0016');
    expect(procSocketAddress('127.0.0.1', 22, false)).toBe('7F000001:0016');
    expect(procSocketAddress('10.1.2.3', 65535, true)).toBe('0302010A:FFFF');
  });

  it('writes IPv6 as four such words, with :: and an IPv4 tail expanded', () => {
    expect(procSocketAddress('::1', 8080, true)).toBe('00000000000000000000000001000000:1F90');
    expect(procSocketAddress('::ffff:127.0.0.1', 1, true)).toBe('0000000000000000FFFF00000100007F:0001');
    expect(procSocketAddress('fe80::1%lo', 1, false)).toBe('FE800000000000000000000000000001:0001');
    expect(procSocketAddress('2001:db8:0:0:0:0:0:2', 1, true)).toBe('B80D0120000000000000000002000000:0001');
  });

  it('refuses what is no address', () => {
    expect(procSocketAddress('localhost', 1)).toBeUndefined();
    expect(procSocketAddress('', 1)).toBeUndefined();
  });
});

describe('socketOwner and passwdName', () => {
  const table = [
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
    '   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 100 1 0 100 0 0 10 0',
    '   1: 0100007F:1F90 0100007F:A000 01 00000000:00000000 00:00000000 00000000     0        0 101 1 0 20 4 30 10 -1',
    '   2: 0100007F:A000 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 102 1 0 20 4 30 10 -1',
  ].join('\n');

  it("finds the client's row (local = client, remote = server), not the server's", () => {
    expect(socketOwner(table, '0100007F:A000', '0100007F:1F90')).toBe(1000);
    expect(socketOwner(table, '0100007F:1F90', '0100007F:A000')).toBe(0);
    expect(socketOwner(table, '0100007F:B000', '0100007F:1F90')).toBeUndefined();
  });

  it('names a uid from passwd text, only on an exact uid', () => {
    const passwd =
      'root:x:0:0:root:/root:/bin/bash\nbob:x:1000:1000::/home/bob:/bin/sh\nbobby:x:10000:10000::/home/bobby:/bin/sh\n';
    expect(passwdName(passwd, 1000)).toBe('bob');
    expect(passwdName(passwd, 10000)).toBe('bobby');
    expect(passwdName(passwd, 100)).toBeUndefined();
  });

  it('names another uid from a passwd file, and one without a name as "uid N"', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ax-passwd-'));
    const file = path.join(dir, 'passwd');
    fs.writeFileSync(file, 'root:x:0:0:root:/root:/bin/bash\ncarol:x:4343:4343::/home/carol:/bin/sh\n');
    try {
      expect(await userName(4343, file)).toBe('carol');
      expect(await userName(4242, file)).toBe('uid 4242');
      expect(await userName(4242, '/nonexistent/passwd')).toBe('uid 4242');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

const servers: net.Server[] = [];
const sockets: net.Socket[] = [];
afterEach(() => {
  sockets.splice(0).forEach((s) => s.destroy());
  servers.splice(0).forEach((s) => s.close());
});

/** The server's end of a fresh connection from this process to host. */
async function loopback(host: string): Promise<net.Socket> {
  const server = net.createServer();
  servers.push(server);
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  sockets.push(net.connect((server.address() as net.AddressInfo).port, host));
  const socket = await accepted;
  sockets.push(socket);
  return socket;
}

const hasIpv6Loopback = Object.values(os.networkInterfaces()).some((list) => list?.some((i) => i.address === '::1'));

// Skipped where there is no /proc/net (macOS, Windows): there the peer is unknown by design.
describe.skipIf(!HAS_PROC_NET)(`a real loopback connection${HAS_PROC_NET ? '' : ' (skipped: no /proc/net)'}`, () => {
  it('over IPv4: its client end is ours, named as we are', async () => {
    const socket = await loopback('127.0.0.1');
    expect(await peerUid(socket)).toBe(process.getuid?.());
    expect(await peerUser(socket)).toBe(os.userInfo().username);
  });

  // Skipped on a machine without ::1 (IPv6 turned off).
  it.skipIf(!hasIpv6Loopback)(`over IPv6 (::1)${hasIpv6Loopback ? '' : ' (skipped: no ::1 here)'}`, async () => {
    const socket = await loopback('::1');
    expect(await peerUid(socket)).toBe(process.getuid?.());
  });

  it('is unknown without a socket table', async () => {
    const socket = await loopback('127.0.0.1');
    expect(await peerUid(socket, '/nonexistent')).toBeUndefined();
  });
});
