import type { DataSourceOptions } from 'typeorm';
import { ApiKey } from '../../api-keys/api-key.entity';
import { SignupCode } from '../../auth/signup-code.entity';
import { Workspace } from '../../workspaces/workspace.entity';
import { Job } from '../../jobs/job.entity';
import { Foundation1763769600000 } from '../../migrations/1763769600000-Foundation';
import { Jobs1763773200000 } from '../../migrations/1763773200000-Jobs';

/** Entities and migrations are listed here once; the app and the TypeORM CLI (ormconfig.ts) share it. */
export const ENTITIES = [Workspace, ApiKey, SignupCode, Job];
export const MIGRATIONS = [Foundation1763769600000, Jobs1763773200000];

export function dataSourceOptions(url: string): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsRun: true,
    synchronize: false,
    extra: { max: 10 },
  };
}
