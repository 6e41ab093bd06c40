// Outgoing e-mail of the sign-in codes, through SMTP with nodemailer.
import nodemailer from 'nodemailer';

export interface SmtpOptions {
  host: string;
  port: number;
  /** true: TLS from the start (usually port 465); false: STARTTLS when the server offers it. */
  secure: boolean;
  user?: string;
  pass?: string;
  /** Sender, e.g. "Explorer <no-reply@example.org>". */
  from: string;
}

export interface Mailer {
  send(to: string, subject: string, text: string): Promise<void>;
  close(): void;
}

export function createMailer(o: SmtpOptions): Mailer {
  const transport = nodemailer.createTransport({
    host: o.host,
    port: o.port,
    secure: o.secure,
    auth: o.user ? { user: o.user, pass: o.pass ?? '' } : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    async send(to, subject, text) {
      await transport.sendMail({ from: o.from, to, subject, text });
    },
    close() {
      transport.close();
    },
  };
}
