// Browser sign-in without the API token ever leaving the machine's files: `ax serve` / `ax open`
// print a link with a single-use code that lives two minutes; the page trades it for a session
// held in an HttpOnly cookie. Codes and sessions live in memory: a restarted engine signs out.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const CODE_TTL_MS = 120_000;
const SESSION_TTL_MS = 7 * 86_400_000;

/** Constant-time comparison of secrets (hashed first, so lengths leak nothing either). */
export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined || expected.length === 0) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export class SignIn {
  private readonly codes = new Map<string, number>();
  private readonly sessions = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  createCode(): string {
    this.sweep();
    const code = randomBytes(24).toString('base64url');
    this.codes.set(code, this.now() + CODE_TTL_MS);
    return code;
  }

  /** Trades a code for a session id; a code works once, and not after it expired. */
  exchange(code: unknown): string | undefined {
    this.sweep();
    if (typeof code !== 'string') return undefined;
    const expires = this.codes.get(code);
    if (expires === undefined) return undefined;
    this.codes.delete(code);
    if (expires < this.now()) return undefined;
    const session = randomBytes(32).toString('base64url');
    this.sessions.set(session, this.now() + SESSION_TTL_MS);
    return session;
  }

  validSession(session: string | undefined): boolean {
    if (!session) return false;
    const expires = this.sessions.get(session);
    return expires !== undefined && expires >= this.now();
  }

  endSession(session: string | undefined): void {
    if (session) this.sessions.delete(session);
  }

  private sweep(): void {
    const now = this.now();
    for (const [k, t] of this.codes) if (t < now) this.codes.delete(k);
    for (const [k, t] of this.sessions) if (t < now) this.sessions.delete(k);
  }
}
