import { DataSource } from 'typeorm';
import { dataSourceOptions } from './src/data-source-options';

/**
 * For the TypeORM CLI (`npm run migration:run`, `migration:generate`). It needs DATABASE_URL; the
 * service itself runs migrations at start, including against the embedded PostgreSQL.
 */
const url = process.env.DATABASE_URL;
if (!url) throw new Error('Set DATABASE_URL to use the TypeORM CLI');
export default new DataSource({ ...dataSourceOptions(url), migrationsRun: false });
