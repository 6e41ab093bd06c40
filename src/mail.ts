// Outgoing e-mail, the one way: an SMTP relay given as a URL (SMTP_URL), through nodemailer.
// Used for sign-in codes, confirmations of notification addresses and watchlist notifications.
import nodemailer from 'nodemailer';

export interface MailSettings {
  /** smtp://user:pass@host:port (STARTTLS when offered) or smtps://... (TLS from the start). */
  url: string;
  /** Sender, e.g. "Explorer <no-reply@example.org>". */
  from: string;
  /** TLS options (an operator's or a test's own CA). */
  tls?: { rejectUnauthorized?: boolean };
}

export interface Mail {
  to: string;
  subject: string;
  text: string;
  headers?: Record<string, string>;
}

export interface Mailer {
  send(m: Mail): Promise<void>;
  close(): void;
}

export function createMailer(s: MailSettings): Mailer {
  const u = new URL(s.url);
  const transport = nodemailer.createTransport({
    host: u.hostname,
    port: Number(u.port) || (u.protocol === 'smtps:' ? 465 : 587),
    secure: u.protocol === 'smtps:',
    auth: u.username ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } : undefined,
    tls: s.tls,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    async send(m) {
      await transport.sendMail({ from: s.from, to: m.to, subject: m.subject, text: m.text, headers: m.headers });
    },
    close() {
      transport.close();
    },
  };
}
