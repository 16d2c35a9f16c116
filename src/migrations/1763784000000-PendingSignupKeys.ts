import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A key that signup returns stays pending until POST /v1/signup/verify is called with it and the
 * emailed code; it belongs to that code and dies with it.
 */
export class PendingSignupKeys1763784000000 implements MigrationInterface {
  name = 'PendingSignupKeys1763784000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_keys ADD COLUMN pending_code_id text REFERENCES signup_codes(id) ON DELETE CASCADE`);
    await q.query(`CREATE INDEX api_keys_pending_code_idx ON api_keys (pending_code_id) WHERE pending_code_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_keys DROP COLUMN pending_code_id`);
  }
}
