// The team key's cipher: AES-256-GCM with a random 12-byte IV per value, the value's context
// (name and group) as additional authenticated data, so a sealed value copied into another row
// (another name, another group) does not open. The key comes from the host each time it is
// needed (a file read is cheap): a key installed while the node runs is used at its next task.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { AxError } from '../../api/errors.ts';
import type { SealedValue, SecretCipher } from '../../ports/team-secrets.ts';

export const TEAM_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A key's fingerprint: the first 16 hex digits of its SHA-256 (names a key, reveals nothing). */
export function keyFingerprint(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

export interface KeySource {
  /** the key, or undefined when this node has none */
  load(): Buffer | undefined;
  /** what to do without one, for errors: "run ax secrets key init …, or copy … from …" */
  howToGet: string;
  /** where it is, for errors */
  where: string;
}

export class AesGcmCipher implements SecretCipher {
  constructor(private readonly source: KeySource) {}

  keyId(): string | undefined {
    const key = this.source.load();
    return key && keyFingerprint(key);
  }

  seal(value: string, context: string): SealedValue {
    const key = this.key();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return { ciphertext: body.toString('base64'), iv: iv.toString('base64'), keyId: keyFingerprint(key) };
  }

  open(sealed: SealedValue, context: string): string {
    const key = this.key();
    const id = keyFingerprint(key);
    if (sealed.keyId !== id)
      throw new AxError(
        'validation',
        `it was encrypted with another team key (${sealed.keyId}) than this node's ${this.source.where} (${id}): copy the team's key file here from a node where team secrets work, or set the secret again with this key`,
      );
    const body = Buffer.from(sealed.ciphertext, 'base64');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new AxError(
        'validation',
        'its stored value does not decrypt with the team key (it was changed in the database, or moved from another secret): set it again',
      );
    }
  }

  private key(): Buffer {
    const key = this.source.load();
    if (!key)
      throw new AxError(
        'unavailable',
        `this node has no team secret key (${this.source.where}): ${this.source.howToGet}`,
      );
    return key;
  }
}
