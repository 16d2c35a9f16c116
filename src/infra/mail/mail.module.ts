import { Global, Module } from '@nestjs/common';
import * as path from 'node:path';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { FileMailer, Mailer, SmtpMailer } from './mailer';

@Global()
@Module({
  providers: [
    {
      provide: Mailer,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): Mailer =>
        config.smtpUrl
          ? new SmtpMailer(config.smtpUrl, config.mailFrom)
          : new FileMailer(path.join(config.dataDir, 'mail'), config.mailFrom),
    },
  ],
  exports: [Mailer],
})
export class MailModule {}
