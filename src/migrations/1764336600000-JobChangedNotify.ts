import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every update or delete of a job notifies `job_changed` with its id, whoever writes it (the
 * service, a retention sweep, an operator's SQL), at its commit: the processes' read caches drop
 * the job (record 0133).
 */
export class JobChangedNotify1764336600000 implements MigrationInterface {
  name = 'JobChangedNotify1764336600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE FUNCTION jobs_notify_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('job_changed', OLD.id);
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER jobs_changed AFTER UPDATE OR DELETE ON jobs FOR EACH ROW EXECUTE FUNCTION jobs_notify_changed()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER jobs_changed ON jobs`);
    await q.query(`DROP FUNCTION jobs_notify_changed()`);
  }
}
