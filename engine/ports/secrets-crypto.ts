// What the accounts service (core/access/access-service.ts) needs of cryptography, as a port:
// core stays pure (no node:crypto), the node host gives adapters/crypto/node-crypto.ts.
export interface SecretsCrypto {
  /** a password's scrypt hash in the format of store-accounts.ts: "scrypt$N$r$p$SALT$HASH" (base64url) */
  hashPassword(password: string): Promise<string>;
  /** whether the password matches the hash, compared in constant time; false for a malformed hash */
  verifyPassword(password: string, hash: string): Promise<boolean>;
  /** `bytes` random bytes as base64url (tokens: 32 after "axt_"; session ids: 32) */
  randomToken(bytes: number): string;
  /** SHA-256 of the text, hex: how session ids and tokens are stored */
  sha256(text: string): string;
}
