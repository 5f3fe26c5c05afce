// The SecretsCrypto adapter over node:crypto: scrypt hashes in store-accounts.ts's format with
// the parameters of the brief (N=2^15, r=8, p=1, 16-byte salt), checked in constant time;
// hashes this AX did not write (other parameters, malformed) never verify; tokens and SHA-256.
import { describe, expect, it } from 'vitest';
import { nodeCrypto, scryptCrypto } from '../../engine/adapters/crypto/node-crypto.ts';

describe('node crypto', () => {
  it('hashes a password as scrypt$32768$8$1$SALT$KEY with a fresh salt, and verifies only that password', async () => {
    const hash = await nodeCrypto.hashPassword('correct horse battery');
    const [kind, n, r, p, salt, key] = hash.split('$');
    expect([kind, n, r, p]).toEqual(['scrypt', '32768', '8', '1']);
    expect(Buffer.from(salt ?? '', 'base64url')).toHaveLength(16);
    expect(Buffer.from(key ?? '', 'base64url')).toHaveLength(32);
    expect(await nodeCrypto.hashPassword('correct horse battery')).not.toBe(hash);
    expect(await nodeCrypto.verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await nodeCrypto.verifyPassword('correct horse batterY', hash)).toBe(false);
    // a cheaper hash (as tests write) verifies with either adapter: a hash keeps its own N
    const cheap = await scryptCrypto(2 ** 10).hashPassword('pw pw pw pw pw');
    expect(await nodeCrypto.verifyPassword('pw pw pw pw pw', cheap)).toBe(true);
  });

  it('never verifies a malformed hash or one with parameters it does not write (no huge allocations)', async () => {
    const hash = await scryptCrypto(2 ** 10).hashPassword('secret secret');
    const parts = hash.split('$');
    const other = (i: number, v: string) => parts.map((x, j) => (j === i ? v : x)).join('$');
    for (const bad of [
      '',
      'plain',
      other(0, 'bcrypt'),
      other(1, String(2 ** 20)),
      other(1, '1000'),
      other(2, '16'),
      other(3, '2'),
      other(4, 'c2hvcnQ'),
      other(5, 'a2V5'),
      `${hash}$extra`,
    ]) {
      expect(await nodeCrypto.verifyPassword('secret secret', bad)).toBe(false);
    }
  });

  it('random tokens are base64url of the asked bytes; SHA-256 is hex', () => {
    const a = nodeCrypto.randomToken(32);
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(nodeCrypto.randomToken(32)).not.toBe(a);
    expect(nodeCrypto.sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
