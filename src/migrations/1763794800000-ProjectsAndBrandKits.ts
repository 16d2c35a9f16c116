import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Projects (stored, versioned render requests with variables) and brand kits (values extracted
 * from a web page). A job keeps the project id and version it was rendered from; deleting a
 * project leaves its renders, and their `project_id`, as they were (no foreign key on purpose).
 */
export class ProjectsAndBrandKits1763794800000 implements MigrationInterface {
  name = 'ProjectsAndBrandKits1763794800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE projects (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        name text NOT NULL,
        version integer NOT NULL DEFAULT 1,
        render_request jsonb NOT NULL,
        variables jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX projects_workspace_idx ON projects (workspace_id, id DESC)`);
    await q.query(`ALTER TABLE jobs ADD COLUMN project_version integer`);
    await q.query(`CREATE INDEX jobs_project_idx ON jobs (project_id) WHERE project_id IS NOT NULL`);
    await q.query(`
      CREATE TABLE brand_kits (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        name text,
        source_url text NOT NULL,
        status text NOT NULL CHECK (status IN ('extracting', 'ready', 'failed')),
        palette jsonb NOT NULL DEFAULT '{}',
        fonts jsonb NOT NULL DEFAULT '{}',
        logo_url text,
        corner_feel text CHECK (corner_feel IN ('sharp', 'soft', 'pill')),
        confidence jsonb NOT NULL DEFAULT '{}',
        error jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX brand_kits_workspace_idx ON brand_kits (workspace_id, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE brand_kits`);
    await q.query(`DROP INDEX jobs_project_idx`);
    await q.query(`ALTER TABLE jobs DROP COLUMN project_version`);
    await q.query(`DROP TABLE projects`);
  }
}
