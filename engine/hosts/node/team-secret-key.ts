// This node's team secret key: DATA_DIR/team-secret-key, 32 random bytes (base64, one line),
// mode 0600, read with the private-file checks (no link, this user's, open to no one else).
// Only the nodes that may decrypt team secrets hold it: the scheduler nodes (which encrypt what
// `ax secrets set --team` sends and answer token-only workers) and the server-room workers that
// read the team database. A node without it cannot resolve team secrets; the task's failure
// reason says so and how to install it.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { AxError } from '../../api/errors.ts';
import { AesGcmCipher, keyFingerprint, type KeySource, TEAM_KEY_BYTES } from '../../adapters/crypto/aes-gcm-cipher.ts';
import { readPrivateFile, writePrivateFile } from './private-file.ts';

export const teamKeyFile = (dir: string) => path.join(dir, 'team-secret-key');

const howToGet = (dir: string) =>
  `copy the team's key to ${teamKeyFile(dir)} from a node that has it (scp -p, then chmod 600), or on the first node run "ax secrets key init --data-dir ${dir}"`;

/** The key of the data dir, undefined when there is none; a damaged file is refused with its fix. */
export function readTeamKey(dir: string): Buffer | undefined {
  const file = teamKeyFile(dir);
  const text = readPrivateFile(file);
  if (text === undefined) return undefined;
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== TEAM_KEY_BYTES || key.toString('base64') !== text.trim())
    throw new AxError(
      'storage',
      `${file} is not a team secret key (${TEAM_KEY_BYTES} bytes, base64 on one line): copy it again from a node where team secrets work`,
    );
  return key;
}

export function teamKeySource(dir: string): KeySource {
  return { load: () => readTeamKey(dir), howToGet: howToGet(dir), where: teamKeyFile(dir) };
}

export function teamCipher(dir: string): AesGcmCipher {
  return new AesGcmCipher(teamKeySource(dir));
}

/** `ax secrets key init`: makes the key; an existing one is never replaced (its secrets would be lost). */
export function initTeamKey(dir: string): { file: string; fingerprint: string } {
  const file = teamKeyFile(dir);
  const existing = readTeamKey(dir);
  if (existing)
    throw new AxError(
      'conflict',
      `${file} exists already (key ${keyFingerprint(existing)}): the team secrets set with it open only with it, so it is kept; copy it to the other nodes instead`,
    );
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const key = randomBytes(TEAM_KEY_BYTES);
  writePrivateFile(file, `${key.toString('base64')}\n`);
  return { file, fingerprint: keyFingerprint(key) };
}
