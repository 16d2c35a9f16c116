import { Injectable } from '@nestjs/common';
import { PlanCatalogService } from '../workspaces/plan-catalog.service';
import { ApiKeysService, CreatedApiKey } from '../api-keys/api-keys.service';
import { newId } from '../common/ids';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { WorkspaceRepository } from '../workspaces/workspace.repository';
import { toWorkspaceView, WorkspaceView } from '../workspaces/workspace.view';
import { OidcVerifierService } from './oidc-verifier.service';
import { SignupPolicyService } from './signup-policy.service';
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
    private readonly transactions: TransactionRepository,
    private readonly workspaces: WorkspaceRepository,
    private readonly verifier: OidcVerifierService,
    private readonly apiKeys: ApiKeysService,
    private readonly plans: PlanCatalogService,
    private readonly policy: SignupPolicyService,
  ) {}

  /**
   * First login: adopt the email-signup workspace with the same email, or create one; either way a
   * key is returned once. An adopted workspace whose email was never verified loses its keys, since
   * whoever holds them never proved they own the email.
   */
  async sync(idToken: string): Promise<AuthSyncResult> {
    const identity = await this.verifier.verify(idToken);
    const email = normalizeEmail(identity.email);
    return this.transactions.run(async (tx) => {
      await this.workspaces.lockEmail(tx, email);
      const linked = await this.workspaces.findByIdentity(tx, identity.issuer, identity.subject);
      if (linked) return { workspace: toWorkspaceView(linked), api_key: null, created: false };

      const existing = await this.workspaces.findByEmail(tx, email);
      let workspaceId: string;
      if (existing) {
        if (!existing.emailVerifiedAt) await this.apiKeys.revokeAll(existing.id, tx);
        await this.workspaces.update(
          existing.id,
          { oidcIssuer: identity.issuer, oidcSubject: identity.subject, emailVerifiedAt: existing.emailVerifiedAt ?? new Date() },
          tx,
        );
        workspaceId = existing.id;
      } else {
        this.policy.assertAllowed(email);
        workspaceId = newId('ws');
        await this.workspaces.insert(tx, {
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
      const workspace = await this.workspaces.getById(tx, workspaceId);
      return { workspace: toWorkspaceView(workspace), api_key: apiKey, created: !existing };
    });
  }
}
