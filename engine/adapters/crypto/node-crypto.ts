// The SecretsCrypto port over node:crypto: scrypt passwords (N=2^15, r=8, p=1, a 16-byte salt,
// a 32-byte key), random base64url tokens, SHA-256 of session ids and tokens.
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { SecretsCrypto } from '../../ports/secrets-crypto.ts';

const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
// scrypt needs 128 * N * r bytes (32 MiB here); Node's default cap is exactly that, so raise it.
const MAX_MEM = 64 * 1024 * 1024;

function derive(password: string, salt: Buffer, n: number, r: number, p: number, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, length, { N: n, r, p, maxmem: MAX_MEM }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/**
 * `cost`: scrypt's N for new hashes (a power of two, at most 2^15). Lower only in tests, where
 * hundreds of sign-ins would otherwise take minutes; a hash records its own N.
 */
export function scryptCrypto(cost = N): SecretsCrypto {
  return {
    async hashPassword(password) {
      const salt = randomBytes(16);
      const key = await derive(password, salt, cost, R, P, KEY_BYTES);
      return ['scrypt', cost, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
    },
    async verifyPassword(password, hash) {
      const [kind, nText, rText, pText, saltText, keyText, ...rest] = hash.split('$');
      if (kind !== 'scrypt' || keyText === undefined || rest.length) return false;
      const [n, r, p] = [Number(nText), Number(rText), Number(pText)];
      // Only the parameters this AX writes (or cheaper powers of two, as tests may): a stored hash
      // with huge ones must not make a sign-in allocate gigabytes.
      if (!Number.isInteger(n) || n < 2 || n > N || (n & (n - 1)) !== 0 || r !== R || p !== P) return false;
      const salt = Buffer.from(saltText as string, 'base64url');
      const expected = Buffer.from(keyText, 'base64url');
      if (salt.length < 16 || expected.length !== KEY_BYTES) return false;
      const key = await derive(password, salt, n, r, p, KEY_BYTES);
      return timingSafeEqual(key, expected);
    },
    randomToken(bytes) {
      return randomBytes(bytes).toString('base64url');
    },
    sha256(text) {
      return createHash('sha256').update(text, 'utf8').digest('hex');
    },
  };
}

export const nodeCrypto: SecretsCrypto = scryptCrypto();
