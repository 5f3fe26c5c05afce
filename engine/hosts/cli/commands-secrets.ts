// ax secrets: the task secrets of THIS node (DATA_DIR/task-secrets.json, see secrets-file.ts).
// A value is read from stdin, or from a prompt that does not echo on a terminal: never from the
// command line, where `ps` and the shell's history would show it. Nothing prints a value.
import type { Command } from 'commander';
import { AxError } from '../../api/errors.ts';

import { SecretsFile } from '../node/secrets-file.ts';
import { actor, cliDataDir, type GlobalOptions } from './connect.ts';
import { isoTime, printJson, table } from './format.ts';

type Globals = () => GlobalOptions & { json?: boolean };

/** All of stdin, less one trailing newline (what `echo` adds). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** One line typed at the terminal, not echoed. */
function promptHidden(question: string): Promise<string> {
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

export function secretsCommand(program: Command, globals: Globals): void {
  const secrets = program
    .command('secrets')
    .description(
      "this node's task secrets, which workflows refer to as env: { NAME: { secret: SECRET } } (values never shown)",
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ ax secrets set api-token                 # prompts, without echo\n  $ printf %s "$TOKEN" | ax secrets set api-token\n  $ ax secrets ls\n  $ ax secrets rm api-token\n\nIn team mode, set a secret on every worker that runs tasks using it.',
    );
  secrets
    .command('set')
    .argument('<name>', 'the secret name a workflow refers to')
    .description('store a secret on this node: the value from stdin, or typed at a prompt that does not echo')
    .action(async (name: string) => {
      const file = new SecretsFile(cliDataDir(globals().dataDir));
      const value = process.stdin.isTTY
        ? await promptHidden(`value of secret ${name} (not echoed): `)
        : await readStdin();
      file.set(name, value, actor());
      if (globals().json) printJson({ name, file: file.file });
      else console.log(`secret ${name} stored in ${file.file} (mode 0600)`);
    });
  secrets
    .command('ls')
    .description("list this node's secret names and when each was set (never the values)")
    .action(() => {
      const file = new SecretsFile(cliDataDir(globals().dataDir));
      const list = file.list();
      if (globals().json)
        return printJson(list.map((s) => ({ name: s.name, setAt: s.setAt ? isoTime(s.setAt) : undefined })));
      if (list.length === 0)
        return console.log(`no secrets on this node (${file.file}); add one with "ax secrets set NAME"`);
      console.log(
        table(
          ['NAME', 'SET'],
          list.map((s) => [s.name, s.setAt ? isoTime(s.setAt) : '-']),
        ),
      );
    });
  secrets
    .command('rm')
    .argument('<name>')
    .description('remove a secret from this node')
    .action((name: string) => {
      const file = new SecretsFile(cliDataDir(globals().dataDir));
      if (!file.remove(name, actor()))
        throw new AxError('not_found', `no secret "${name}" on this node: "ax secrets ls" lists them`);
      if (!globals().json) console.log(`secret ${name} removed`);
    });
}
