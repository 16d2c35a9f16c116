import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Logger } from '@nestjs/common';
import type { Transporter } from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail. `SmtpMailer` in production; `FileMailer` when SMTP_URL is unset. */
export abstract class Mailer {
  abstract send(message: MailMessage): Promise<void>;
}

export class SmtpMailer extends Mailer {
  private readonly transport: Transporter;

  constructor(smtpUrl: string, private readonly from: string) {
    super();
    // nodemailer loads only where SMTP is configured.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    this.transport = (require('nodemailer') as typeof import('nodemailer')).createTransport(smtpUrl);
  }

  async send(message: MailMessage): Promise<void> {
    await this.transport.sendMail({ from: this.from, ...message });
  }
}

/**
 * The embedded default: each message becomes an .eml file under DATA_DIR/mail, and the log says
 * where, so a local user can read the code. The message body is never logged.
 */
export class FileMailer extends Mailer {
  private readonly logger = new Logger('Mail');

  constructor(private readonly folder: string, private readonly from: string) {
    super();
  }

  async send(message: MailMessage): Promise<void> {
    await mkdir(this.folder, { recursive: true, mode: 0o700 });
    const safeTo = message.to.replace(/[^a-zA-Z0-9@._-]/g, '_');
    const file = path.join(this.folder, `${new Date().toISOString().replace(/[:.]/g, '-')}-${safeTo}.eml`);
    const eml = [
      `From: ${this.from}`,
      `To: ${message.to}`,
      `Subject: ${message.subject}`,
      `Date: ${new Date().toUTCString()}`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      message.text,
      '',
    ].join('\r\n');
    await writeFile(file, eml, { mode: 0o600 });
    this.logger.log(`Mail to ${message.to} written to ${file} (SMTP_URL is not set)`);
  }
}
