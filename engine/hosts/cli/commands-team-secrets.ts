// ax secrets … --team: the team's secrets (team mode), through the API (withApi: a server, or the
// team database as a client), so the same commands work against a server with a token. Values
// go up once, encrypted by the engine that receives them; nothing ever prints one. And
// `ax secrets key init|status`: this node's team key (DATA_DIR/team-secret-key).
import type { Command } from 'commander';
import { AxError } from '../../api/errors.ts';
import { initTeamKey, readTeamKey, teamKeyFile } from '../node/team-secret-key.ts';
import { keyFingerprint } from '../../adapters/crypto/aes-gcm-cipher.ts';
import { actor, cliDataDir, type Globals, modeOf, withApi } from './connect.ts';
import { isoTime, printJson, table } from './format.ts';

function teamOnly(globals: Globals): void {
  if (modeOf(globals()) !== 'team')
    throw new AxError(
      'validation',
      'team secrets need team mode: add --mode team (or set AX_MODE=team, or "ax settings set mode team"); without --team, "ax secrets" keeps secrets on this node',
    );
}

export async function setTeamSecret(globals: Globals, name: string, group: string | undefined, value: string) {
  teamOnly(globals);
  const info = await withApi(globals(), (api) =>
    api.setTeamSecret({ name, ...(group !== undefined && { group }), value }, actor()),
  );
  if (globals().json) return printJson(info);
  const who = info.group ? `workflows owned by group ${info.group}` : 'every workflow';
  console.log(`team secret ${name} stored, encrypted in the team database: ${who} may use it`);
}

export async function listTeamSecrets(globals: Globals) {
  teamOnly(globals);
  const list = await withApi(globals(), (api) => api.listTeamSecrets());
  if (globals().json) return printJson(list.map((s) => ({ ...s, setAt: isoTime(s.setAt) })));
  if (list.length === 0) return console.log('no team secrets; add one with "ax secrets set NAME --team [--group G]"');
  console.log(
    table(
      ['NAME', 'GROUP', 'SET BY', 'SET'],
      list.map((s) => [s.name, s.group ?? '-', s.setBy, isoTime(s.setAt)]),
    ),
  );
}

export async function removeTeamSecret(globals: Globals, name: string) {
  teamOnly(globals);
  await withApi(globals(), (api) => api.removeTeamSecret(name, actor()));
  if (!globals().json) console.log(`team secret ${name} removed`);
}

export function teamKeyCommands(secrets: Command, globals: Globals): void {
  const key = secrets
    .command('key')
    .description("this node's team secret key (DATA_DIR/team-secret-key): what decrypts team secrets here");
  key
    .command('init')
    .description('make the team key on the first node (never replaces one), then copy it to the others')
    .action(() => {
      const dir = cliDataDir(globals().dataDir);
      const made = initTeamKey(dir);
      if (globals().json) return printJson(made);
      console.log(`team secret key made: ${made.file} (key ${made.fingerprint}, mode 0600)`);
      console.log(
        [
          '',
          'Copy it, as it is, to every other scheduler node and server-room worker that must decrypt team',
          "secrets (not to laptops or token-only workers: the server gives those their tasks' secrets):",
          `  scp -p ${made.file} NODE:DATA_DIR/team-secret-key && ssh NODE chmod 600 DATA_DIR/team-secret-key`,
          `Then "ax secrets key status" there prints the same key ${made.fingerprint}.`,
          'Keep a copy offline: without it, the team secrets cannot be decrypted and must be set again.',
        ].join('\n'),
      );
    });
  key
    .command('status')
    .description('whether this node has the team key, and its fingerprint (never the key)')
    .action(() => {
      const dir = cliDataDir(globals().dataDir);
      const k = readTeamKey(dir);
      const file = teamKeyFile(dir);
      if (globals().json) return printJson({ file, fingerprint: k ? keyFingerprint(k) : null });
      if (!k)
        return console.log(
          `no team secret key at ${file}: this node cannot decrypt team secrets; copy the team's key here, or on the first node run "ax secrets key init"`,
        );
      console.log(`team secret key ${keyFingerprint(k)} at ${file}`);
    });
}
