// Reading a file the user named (a workflow file, --payload-file): regular files only. A FIFO
// with no writer would block the open forever, a device (/dev/zero) or a FIFO whose writer never
// stops would never end: each is refused naming what it is. Opened non-blocking, so even the
// open cannot hang, then checked on the open descriptor (no gap between a check and the open).
import fs from 'node:fs';
import { AxError } from '../../api/errors.ts';

function kind(stat: fs.Stats): string {
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * At most `limit` bytes of the regular file `file`, or an AxError (validation) naming the file as
 * `label` and, for one that is not a regular file, `instead`: what to do instead.
 */
export function readRegularFile(file: string, label: string, limit: number, instead: string): Buffer {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new AxError(
      'validation',
      code === 'ENOENT'
        ? `${label}: no such file: check the path (it is read relative to ${process.cwd()})`
        : `${label}: cannot read it (${code ?? String(err)})`,
    );
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new AxError('validation', `${label}: is ${kind(stat)}, not a regular file: ${instead}`);
    const chunks: Buffer[] = [];
    let total = 0;
    // Bounded even for a regular file that grows while it is read.
    while (total < limit) {
      const chunk = Buffer.allocUnsafe(Math.min(limit - total, 1024 * 1024));
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
    }
    return Buffer.concat(chunks, total);
  } catch (err) {
    if (err instanceof AxError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new AxError('validation', `${label}: cannot read it (${code ?? String(err)})`);
  } finally {
    fs.closeSync(fd);
  }
}
