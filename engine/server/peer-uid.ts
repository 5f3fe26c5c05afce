// Who is at the other end of a local TCP connection, so the audit names the user who holds the
// API token rather than the data dir's owner (root, or anyone who copied the token, would
// otherwise all read as the owner). `ax serve` listens on loopback, so the client is a process of
// this machine, and on Linux the kernel's socket table (/proc/net/tcp, tcp6) says which uid owns
// the client's end: the row whose local address is the client's and whose remote one is ours.
// Read once per connection, at the upgrade, and at most MAX_TABLE_BYTES of it; where there is no
// /proc (macOS, Windows) or no such row (another network namespace, a remote client) the answer is
// undefined and the caller says the peer is unknown.
import { open } from 'node:fs/promises';
import { isIPv4, isIPv6 } from 'node:net';
import os from 'node:os';

/** A machine with this many sockets is past what one look-up at a connection should read. */
const MAX_TABLE_BYTES = 8 * 1024 * 1024;
const MAX_PASSWD_BYTES = 4 * 1024 * 1024;
const LITTLE_ENDIAN = os.endianness() === 'LE';

/** The text of a file, at most `max` bytes of it (whole lines only when cut); undefined when it cannot be read. */
async function readBounded(file: string, max: number): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return undefined;
  }
  try {
    // /proc files say size 0: read until the end or the bound.
    const chunks: Buffer[] = [];
    let size = 0;
    while (size < max) {
      const chunk = Buffer.alloc(Math.min(64 * 1024, max - size));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) return Buffer.concat(chunks).toString('latin1');
      chunks.push(chunk.subarray(0, bytesRead));
      size += bytesRead;
    }
    // Cut at the bound: a last line read in part could hold a uid cut short.
    const text = Buffer.concat(chunks).toString('latin1');
    return text.slice(0, text.lastIndexOf('\n') + 1);
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

function ipv6Bytes(address: string): number[] | undefined {
  let text = address.replace(/%.*$/, '');
  // An IPv4 tail (::ffff:127.0.0.1) as its two 16-bit groups.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail, more] = text.split('::');
  if (more !== undefined) return undefined;
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const all =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  if (all.length !== 8) return undefined;
  return all.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

/**
 * An address and port as /proc/net/tcp and tcp6 print them: the address's bytes in 32-bit words,
 * each in the machine's byte order, in upper-case hex, then ":" and the port in hex.
 */
export function procSocketAddress(address: string, port: number, littleEndian = LITTLE_ENDIAN): string | undefined {
  const bytes = isIPv4(address) ? address.split('.').map(Number) : isIPv6(address) ? ipv6Bytes(address) : undefined;
  if (!bytes) return undefined;
  let hex = '';
  for (let i = 0; i < bytes.length; i += 4) {
    const word = bytes.slice(i, i + 4);
    hex += (littleEndian ? word.reverse() : word).map((b) => b.toString(16).padStart(2, '0')).join('');
  }
  return `${hex}:${port.toString(16).padStart(4, '0')}`.toUpperCase();
}

/** The uid column of the socket table row with this local and remote address; undefined when there is none. */
export function socketOwner(table: string, local: string, remote: string): number | undefined {
  for (const line of table.split('\n')) {
    // "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ..."
    const fields = line.trim().split(/\s+/);
    if (fields[1] === local && fields[2] === remote && fields[7] !== undefined && /^\d+$/.test(fields[7]))
      return Number(fields[7]);
  }
  return undefined;
}

export interface SocketEnds {
  remoteAddress?: string;
  remotePort?: number;
  localAddress?: string;
  localPort?: number;
}

/** The uid that owns the client's end of this server-side socket, or undefined (no /proc, no row). */
export async function peerUid(socket: SocketEnds, procNet = '/proc/net'): Promise<number | undefined> {
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  if (!remoteAddress || !remotePort || !localAddress || !localPort) return undefined;
  // The client's socket: its local end is our remote one.
  const client = procSocketAddress(remoteAddress, remotePort);
  const server = procSocketAddress(localAddress, localPort);
  if (!client || !server) return undefined;
  const table = await readBounded(`${procNet}/${isIPv4(remoteAddress) ? 'tcp' : 'tcp6'}`, MAX_TABLE_BYTES);
  return table === undefined ? undefined : socketOwner(table, client, server);
}

/** The name of a uid from a passwd file's text; undefined when it has none. */
export function passwdName(passwd: string, uid: number): string | undefined {
  for (const line of passwd.split('\n')) {
    const [name, , id] = line.split(':');
    if (name && id !== undefined && Number(id) === uid && /^\d+$/.test(id)) return name;
  }
  return undefined;
}

/** A uid as a user name: ours from the system, another from /etc/passwd, else "uid N". */
export async function userName(uid: number, passwdFile = '/etc/passwd'): Promise<string> {
  if (uid === process.getuid?.()) {
    try {
      return os.userInfo().username;
    } catch {
      // no entry for our own uid (a container's arbitrary uid): said as a number below
    }
  }
  const passwd = await readBounded(passwdFile, MAX_PASSWD_BYTES);
  return (passwd === undefined ? undefined : passwdName(passwd, uid)) ?? `uid ${uid}`;
}

/** The user name of the process at the other end of this local connection, or undefined when it cannot be told. */
export async function peerUser(socket: SocketEnds): Promise<string | undefined> {
  const uid = await peerUid(socket);
  return uid === undefined ? undefined : userName(uid);
}
