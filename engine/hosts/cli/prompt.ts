// What a command reads that must not show: all of stdin, or a line typed at a prompt that does
// not echo (secrets, passwords). Never the command line, where `ps` and the shell's history see it.
import { AxError } from '../../api/errors.ts';

/** All of stdin, less one trailing newline (what `echo` adds). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** One line typed at the terminal, not echoed. */
export function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  // Echo off before the question shows: what is typed the moment it appears must not be echoed.
  stdin.setRawMode(true);
  process.stderr.write(question);
  stdin.resume();
  stdin.setEncoding('utf8');
  let typed = '';
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(typed);
    };
    const onData = (text: string) => {
      for (const ch of text) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new AxError('validation', 'cancelled: nothing was stored'));
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else typed += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** The lines of stdin (a password each), or the error that says how to give them. */
async function stdinLines(count: number, flag: string): Promise<string[]> {
  const lines = (await readStdin()).split(/\r?\n/);
  if (lines.length < count || lines.slice(0, count).some((l) => l === '')) {
    throw new AxError('validation', `${flag}: stdin must hold ${count === 1 ? 'the password' : `${count} lines`}`);
  }
  return lines.slice(0, count);
}

function noTerminal(flag: string): AxError {
  return new AxError('validation', `no terminal to type the password at: give it on stdin with ${flag}`);
}

/** A new password: from stdin (--password-stdin), else typed twice at a prompt without echo. */
export async function newPassword(fromStdin: boolean | undefined, whose: string): Promise<string> {
  if (fromStdin) return (await stdinLines(1, '--password-stdin'))[0] as string;
  if (!process.stdin.isTTY) throw noTerminal('--password-stdin');
  const first = await promptHidden(`new password for ${whose} (not echoed): `);
  const again = await promptHidden('the same again: ');
  if (first !== again) throw new AxError('validation', 'the two passwords differ: nothing was changed');
  return first;
}

/** The current and a new password: two lines of stdin, else prompts (the new one twice). */
export async function passwordChange(fromStdin: boolean | undefined, whose: string): Promise<[string, string]> {
  if (fromStdin)
    return (await stdinLines(2, '--password-stdin (the current password, then the new one)')) as [string, string];
  if (!process.stdin.isTTY) throw noTerminal('--password-stdin (two lines: the current, then the new)');
  const current = await promptHidden(`current password of ${whose} (not echoed): `);
  return [current, await newPassword(false, whose)];
}
