// The team key and its cipher: `ax secrets key init` makes a private 32-byte key once; values
// are sealed with AES-256-GCM under a fresh IV each, bound to their name and group; a node with
// no key, another key, or a value moved or changed in the database gets an error saying what to do.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AesGcmCipher, keyFingerprint } from '../../engine/adapters/crypto/aes-gcm-cipher.ts';
import { AxError } from '../../engine/api/errors.ts';
import { initTeamKey, readTeamKey, teamCipher, teamKeyFile } from '../../engine/hosts/node/team-secret-key.ts';
import { tempDir } from '../helpers/files.ts';

const posix = process.platform !== 'win32';

describe('team secret key file', () => {
  it('is made once, 32 random bytes, mode 0600; a second init keeps it', () => {
    const dir = tempDir('ax-team-key-');
    const made = initTeamKey(dir);
    expect(made.file).toBe(teamKeyFile(dir));
    const key = readTeamKey(dir) as Buffer;
    expect(key).toHaveLength(32);
    expect(made.fingerprint).toBe(keyFingerprint(key));
    if (posix) expect(fs.statSync(made.file).mode & 0o777).toBe(0o600);
    expect(() => initTeamKey(dir)).toThrow(/exists already .*it is kept; copy it to the other nodes/);
    expect(readTeamKey(dir)?.equals(key)).toBe(true);
    // Another data dir gets another key.
    const other = tempDir('ax-team-key-');
    initTeamKey(other);
    expect(readTeamKey(other)?.equals(key)).toBe(false);
  });

  it('refuses a damaged key file with its fix, and one open to others', () => {
    const dir = tempDir('ax-team-key-');
    fs.writeFileSync(teamKeyFile(dir), 'c2hvcnQ=\n', { mode: 0o600 });
    expect(() => readTeamKey(dir)).toThrow(/is not a team secret key \(32 bytes, base64 on one line\): copy it again/);
    if (posix) {
      fs.rmSync(teamKeyFile(dir));
      initTeamKey(dir);
      fs.chmodSync(teamKeyFile(dir), 0o644);
      expect(() => readTeamKey(dir)).toThrow(AxError);
    }
  });
});

describe('AES-256-GCM team cipher', () => {
  const dir = tempDir('ax-team-key-');
  initTeamKey(dir);
  const cipher = teamCipher(dir);
  const ctx = 'ax-team-secret\nwarehouse\ndata-team';

  it('seals with a fresh IV each time, never the value in the clear, and opens what it sealed', () => {
    const value = 'pg-pass-7c1f0e9b';
    const a = cipher.seal(value, ctx);
    const b = cipher.seal(value, ctx);
    expect(a.iv).not.toBe(b.iv);
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(Buffer.from(a.iv, 'base64')).toHaveLength(12);
    expect(Buffer.from(a.ciphertext, 'base64').includes(Buffer.from(value))).toBe(false);
    expect(a.ciphertext).not.toContain(value);
    expect(a.keyId).toBe(cipher.keyId());
    expect(cipher.open(a, ctx)).toBe(value);
    expect(cipher.open(b, ctx)).toBe(value);
    expect(cipher.open(cipher.seal('ünïcödé ✓', ctx), ctx)).toBe('ünïcödé ✓');
  });

  it('does not open a value moved to another name or group, or changed in the database', () => {
    const sealed = cipher.seal('s3cret-value', ctx);
    expect(() => cipher.open(sealed, 'ax-team-secret\nwarehouse\nbilling')).toThrow(
      /does not decrypt with the team key .*set it again/,
    );
    const body = Buffer.from(sealed.ciphertext, 'base64');
    body[0] = (body[0] as number) ^ 1;
    expect(() => cipher.open({ ...sealed, ciphertext: body.toString('base64') }, ctx)).toThrow(
      /does not decrypt with the team key/,
    );
  });

  it("names both keys when the node's key is another than the value's", () => {
    const sealed = cipher.seal('s3cret-value', ctx);
    const otherDir = tempDir('ax-team-key-');
    const other = teamCipher(otherDir);
    initTeamKey(otherDir);
    expect(() => other.open(sealed, ctx)).toThrow(
      new RegExp(`another team key \\(${sealed.keyId}\\) than this node's .*team-secret-key \\(${other.keyId()}\\)`),
    );
  });

  it('says where the key goes and how to get it on a node without one', () => {
    const bare = tempDir('ax-team-key-');
    const none = teamCipher(bare);
    expect(none.keyId()).toBeUndefined();
    expect(() => none.seal('x-value', ctx)).toThrow(
      `this node has no team secret key (${path.join(bare, 'team-secret-key')}): copy the team's key to ${path.join(bare, 'team-secret-key')} from a node that has it (scp -p, then chmod 600), or on the first node run "ax secrets key init --data-dir ${bare}"`,
    );
    // A key installed while the node runs is used from then on.
    initTeamKey(bare);
    expect(none.keyId()).toBe(keyFingerprint(readTeamKey(bare) as Buffer));
  });

  it('uses only the key it is given', () => {
    const key = Buffer.alloc(32, 7);
    const fixed = new AesGcmCipher({ load: () => key, howToGet: '', where: 'test' });
    expect(fixed.keyId()).toBe(keyFingerprint(key));
    expect(fixed.open(fixed.seal('abc-def', 'c'), 'c')).toBe('abc-def');
  });
});
