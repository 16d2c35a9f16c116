import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { SigningSecret } from './signing-secret.entity';
import { generateSigningSecret } from './webhook-signer';

/** The workspace signing secret: created on first use, replaced by a rotation (which re-keys every webhook). */
@Injectable()
export class SigningSecrets {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async get(workspaceId: string, manager: EntityManager = this.db.manager): Promise<string> {
    const existing = await this.read(workspaceId, manager);
    if (existing) return existing;
    // Two first uses at once both try; the primary key keeps one, and both read that one.
    await manager.query(
      `INSERT INTO webhook_signing_secrets (workspace_id, secret) VALUES ($1, $2) ON CONFLICT (workspace_id) DO NOTHING`,
      [workspaceId, generateSigningSecret()],
    );
    return (await this.read(workspaceId, manager))!;
  }

  /** A new secret for the workspace; the old one stops signing at once, retries included. */
  async rotate(workspaceId: string): Promise<string> {
    const secret = generateSigningSecret();
    await this.db.query(
      `INSERT INTO webhook_signing_secrets (workspace_id, secret) VALUES ($1, $2)
       ON CONFLICT (workspace_id) DO UPDATE SET secret = EXCLUDED.secret, rotated_at = now()`,
      [workspaceId, secret],
    );
    return secret;
  }

  private async read(workspaceId: string, manager: EntityManager): Promise<string | null> {
    const row = await manager
      .getRepository(SigningSecret)
      .createQueryBuilder('s')
      .addSelect('s.secret')
      .where('s.workspaceId = :workspaceId', { workspaceId })
      .getOne();
    return row?.secret ?? null;
  }
}
