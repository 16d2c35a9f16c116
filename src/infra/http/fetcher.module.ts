import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { AddressPolicy } from './address-policy';
import { GuardedFetcher } from './guarded-fetcher';

/** `GuardedFetcher` for every module; ALLOW_PRIVATE_NETWORK decides whether loopback and private addresses pass. */
@Global()
@Module({
  providers: [
    {
      provide: GuardedFetcher,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new GuardedFetcher({ addressPolicy: new AddressPolicy({ allowPrivateNetwork: config.allowPrivateNetwork }) }),
    },
  ],
  exports: [GuardedFetcher],
})
export class FetcherModule {}
