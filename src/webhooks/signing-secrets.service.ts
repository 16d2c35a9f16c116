import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SigningSecretRepository } from './signing-secret.repository';
import { generateSigningSecret } from './webhook-signer';

/** The workspace signing secret: created on first use, replaced by a rotation (which re-keys every webhook). */
@Injectable()
export class SigningSecretsService {
  constructor(private readonly rows: SigningSecretRepository) {}

  async get(workspaceId: string, manager?: EntityManager): Promise<string> {
    const existing = await this.rows.find(workspaceId, manager);
    if (existing) return existing;
    // Two first uses at once both try; the primary key keeps one, and both read that one.
    await this.rows.insertIfAbsent(workspaceId, generateSigningSecret(), manager);
    return (await this.rows.find(workspaceId, manager))!;
  }

  /** A new secret for the workspace; the old one stops signing at once, retries included. */
  async rotate(workspaceId: string): Promise<string> {
    const secret = generateSigningSecret();
    await this.rows.replace(workspaceId, secret);
    return secret;
  }
}
