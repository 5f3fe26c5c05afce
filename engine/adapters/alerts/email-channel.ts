// An e-mail alert channel over SMTP (nodemailer): STARTTLS required unless turned off (or TLS
// from the first byte with `secure`, port 465), one connection per attempt, closed when the core
// gives the attempt up. The password may be `{ secret: NAME }`, read at each send.
import nodemailer from 'nodemailer';
import type { AlertRecord } from '../../api/alerts.ts';
import type { AlertChannel } from '../../ports/alert-channel.ts';
import { alertSubject, alertText } from './alert-text.ts';

export interface EmailOptions {
  name: string;
  host: string;
  port: number;
  secure: boolean;
  starttls: boolean;
  /** accept a self-signed server certificate (a test server); never for a real one */
  tlsInsecure?: boolean;
  user?: string;
  password: () => string | undefined;
  from: string;
  to: string[];
  timeoutMs?: number;
  retries?: number;
}

export class EmailChannel implements AlertChannel {
  readonly kind = 'email' as const;
  readonly name: string;
  readonly target: string;
  readonly timeoutMs?: number;
  readonly retries?: number;

  constructor(private readonly options: EmailOptions) {
    this.name = options.name;
    this.target = `${options.to.join(', ')} via ${options.host}:${options.port}`;
    this.timeoutMs = options.timeoutMs;
    this.retries = options.retries;
  }

  async send(alert: AlertRecord, signal: AbortSignal): Promise<void> {
    const o = this.options;
    const timeout = o.timeoutMs ?? 10_000;
    const transport = nodemailer.createTransport({
      host: o.host,
      port: o.port,
      secure: o.secure,
      requireTLS: !o.secure && o.starttls,
      ignoreTLS: !o.secure && !o.starttls,
      ...(o.user !== undefined && { auth: { user: o.user, pass: o.password() ?? '' } }),
      ...(o.tlsInsecure && { tls: { rejectUnauthorized: false } }),
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    });
    const abort = () => transport.close();
    signal.addEventListener('abort', abort, { once: true });
    try {
      await transport.sendMail({ from: o.from, to: o.to, subject: alertSubject(alert), text: alertText(alert) });
    } catch (err) {
      throw new Error(`SMTP ${o.host}:${o.port}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    } finally {
      signal.removeEventListener('abort', abort);
      transport.close();
    }
  }
}
