// Real receivers for alert tests: an HTTP server that records the webhook posts it
// gets (and answers as the test says: an error, or never), and an SMTP server (smtp-server, with
// STARTTLS on its built-in self-signed certificate) that records the mail.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface WebhookPost {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/** What the receiver answers to post number n (1-based): a status, a status with its body, or `hang` (never answers). */
export type Answer = (n: number) => number | { status: number; body: string } | 'hang';

export interface WebhookReceiver {
  url: string;
  /** every post, answered or not, in arrival order */
  posts: WebhookPost[];
  answer: Answer;
  close(): Promise<void>;
}

export async function startWebhookReceiver(answer: Answer = () => 200): Promise<WebhookReceiver> {
  const posts: WebhookPost[] = [];
  const hanging = new Set<http.ServerResponse>();
  const receiver: WebhookReceiver = { url: '', posts, answer, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text: the test says what it expected
      }
      posts.push({ path: req.url ?? '', headers: req.headers, body });
      const status = receiver.answer(posts.length);
      if (status === 'hang') {
        hanging.add(res);
        return;
      }
      if (typeof status === 'object')
        return void res.writeHead(status.status, { 'content-type': 'application/json' }).end(status.body);
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(status < 300 ? '{"ok":true}' : '{"error":"receiver says no"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/T000/B000/secret-token`;
  receiver.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

export interface Mail {
  from: string;
  to: string[];
  /** the raw message: headers and body */
  raw: string;
  subject: string;
  /** did the client upgrade with STARTTLS before sending */
  secure: boolean;
  user?: string;
}

export interface SmtpReceiver {
  port: number;
  mails: Mail[];
  close(): Promise<void>;
}

/** An SMTP server on 127.0.0.1 that offers STARTTLS and takes any user with the password `right`. */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: false,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.password === 'right') callback(null, { user: auth.username });
      else callback(new Error('wrong password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const subject = decodeWords(
          /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1]?.replace(/\r?\n[ \t]/g, ' ') ?? '',
        );
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          subject,
          secure: session.secure,
          ...(typeof session.user === 'string' && { user: session.user }),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** RFC 2047 encoded words (=?UTF-8?Q?…?= and =?UTF-8?B?…?=), as mail clients show a header. */
function decodeWords(header: string): string {
  return header
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?([QB])\?(.*?)\?=/gi, (_, enc: string, text: string) => {
      if (enc.toUpperCase() === 'B') return Buffer.from(text, 'base64').toString('utf8');
      const bytes = text
        .replace(/_/g, ' ')
        .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      return Buffer.from(bytes, 'latin1').toString('utf8');
    });
}
