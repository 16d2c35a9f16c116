import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { SigningSecret } from './signing-secret.entity';

/** The `webhook_signing_secrets` table: one secret per workspace, never selected by default. */
@Injectable()
export class SigningSecretRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async find(workspaceId: string, manager: EntityManager = this.db.manager): Promise<string | null> {
    const row = await manager
      .getRepository(SigningSecret)
      .createQueryBuilder('s')
      .addSelect('s.secret')
      .where('s.workspaceId = :workspaceId', { workspaceId })
      .getOne();
    return row?.secret ?? null;
  }

  /** Keeps an existing secret: of two first uses at once, the primary key keeps one. */
  async insertIfAbsent(workspaceId: string, secret: string, manager: EntityManager = this.db.manager): Promise<void> {
    await manager.query(`INSERT INTO webhook_signing_secrets (workspace_id, secret) VALUES ($1, $2) ON CONFLICT (workspace_id) DO NOTHING`, [
      workspaceId,
      secret,
    ]);
  }

  async replace(workspaceId: string, secret: string): Promise<void> {
    await this.db.query(
      `INSERT INTO webhook_signing_secrets (workspace_id, secret) VALUES ($1, $2)
       ON CONFLICT (workspace_id) DO UPDATE SET secret = EXCLUDED.secret, rotated_at = now()`,
      [workspaceId, secret],
    );
  }
}
