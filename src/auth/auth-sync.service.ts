import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PlanCatalog } from '../workspaces/plan-catalog';
import { ApiKeysService, CreatedApiKey } from '../api-keys/api-keys.service';
import { newId } from '../common/ids';
import { Workspace } from '../workspaces/workspace.entity';
import { toWorkspaceView, WorkspaceView } from '../workspaces/workspace.view';
import { OidcVerifier } from './oidc-verifier';
import { SignupPolicy } from './signup-policy';
import { normalizeEmail } from './signup.service';

export interface AuthSyncResult {
  workspace: WorkspaceView;
  /** Only on the first login of this identity; null afterwards. */
  api_key: CreatedApiKey | null;
  created: boolean;
}

@Injectable()
export class AuthSyncService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly verifier: OidcVerifier,
    private readonly apiKeys: ApiKeysService,
    private readonly plans: PlanCatalog,
    private readonly policy: SignupPolicy,
  ) {}

  /**
   * First login: adopt the email-signup workspace with the same email, or create one; either way a
   * key is returned once. An adopted workspace whose email was never verified loses its keys, since
   * whoever holds them never proved they own the email.
   */
  async sync(idToken: string): Promise<AuthSyncResult> {
    const identity = await this.verifier.verify(idToken);
    const email = normalizeEmail(identity.email);
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`signup:${email}`]);
      const linked = await tx.findOneBy(Workspace, { oidcIssuer: identity.issuer, oidcSubject: identity.subject });
      if (linked) return { workspace: toWorkspaceView(linked), api_key: null, created: false };

      const existing = await tx.findOneBy(Workspace, { email });
      let workspaceId: string;
      if (existing) {
        if (!existing.emailVerifiedAt) await this.apiKeys.revokeAll(existing.id, tx);
        await tx.update(
          Workspace,
          { id: existing.id },
          { oidcIssuer: identity.issuer, oidcSubject: identity.subject, emailVerifiedAt: existing.emailVerifiedAt ?? new Date() },
        );
        workspaceId = existing.id;
      } else {
        this.policy.assertAllowed(email);
        workspaceId = newId('ws');
        await tx.insert(Workspace, {
          id: workspaceId,
          name: identity.name ?? email.split('@')[0],
          email,
          emailVerifiedAt: new Date(),
          oidcIssuer: identity.issuer,
          oidcSubject: identity.subject,
          plan: this.plans.defaultPlan,
        });
      }
      const apiKey = await this.apiKeys.create(workspaceId, 'console', tx);
      const workspace = await tx.findOneByOrFail(Workspace, { id: workspaceId });
      return { workspace: toWorkspaceView(workspace), api_key: apiKey, created: !existing };
    });
  }
}
