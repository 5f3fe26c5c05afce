// When the CLI's output cannot be written. A reader that left (`ax logs 42 clean | head -1`:
// EPIPE) ends the command quietly, as SIGPIPE ends other Unix tools; a full disk or a device
// error (`ax export W > /dev/full`, `-o /dev/full`) is one `ax:` line on stderr, exit 1, never
// Node's "Unhandled 'error' event" stack trace.
import { AxError } from '../../api/errors.ts';

/** An error from the operating system (fs, net): it has an errno code such as ENOSPC. */
export function isSystemError(err: unknown): err is NodeJS.ErrnoException & { code: string } {
  return (
    err instanceof Error &&
    typeof (err as NodeJS.ErrnoException).code === 'string' &&
    /^E[A-Z0-9]+$/.test((err as NodeJS.ErrnoException).code as string)
  );
}

const WHY: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exceeded',
  EIO: 'an I/O error on the device',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOENT: 'no such file or directory',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  EFBIG: 'the file is too large',
  EPIPE: 'the reader closed the pipe',
};

/** "no space left on the device (ENOSPC)": an errno error in words, without its stack. */
export function describeSystemError(err: NodeJS.ErrnoException): string {
  const code = err.code ?? 'error';
  return `${WHY[code] ?? err.message.replace(/^[A-Z0-9]+: /, '').replace(/, \w+ .*$/, '')} (${code})`;
}

/** The error of writing the file named by --output, as one line naming it. */
export function outputFileError(file: string, err: unknown): unknown {
  if (!isSystemError(err)) return err;
  return new AxError(
    err.code === 'ENOENT' || err.code === 'EISDIR' || err.code === 'ENOTDIR' ? 'validation' : 'internal',
    `cannot write ${file}: ${describeSystemError(err)}`,
  );
}

let installed = false;

/** Handles errors of process.stdout and process.stderr (see the file comment). */
export function handleOutputErrors(): void {
  if (installed) return;
  installed = true;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') return readerLeft();
    try {
      process.stderr.write(`ax: cannot write the output: ${describeSystemError(err)}\n`);
    } finally {
      process.exit(1);
    }
  });
  // Nowhere left to say anything: end as the failure it is.
  process.stderr.on('error', () =>
    process.exit(process.exitCode === undefined || process.exitCode === 0 ? 1 : Number(process.exitCode)),
  );
}

/**
 * stdout's reader left. A command waiting for runs stops as on Ctrl-C (its runs are cancelled if
 * this process runs them, as their tasks would die with it under SIGPIPE); any other just exits.
 */
function readerLeft(): void {
  // Nothing more reaches the reader: later writes are dropped instead of raising EPIPE again.
  process.stdout.write = (() => true) as typeof process.stdout.write;
  if (process.listenerCount('SIGINT') > 0) process.emit('SIGINT', 'SIGINT');
  else process.exit(process.exitCode === undefined ? 0 : Number(process.exitCode));
}
