import { Injectable, Logger } from '@nestjs/common';
import { ApiKeysService, CreatedApiKey } from '../api-keys/api-keys.service';
import { ApiError } from '../common/errors/api-error';
import { newId } from '../common/ids';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { Mailer } from '../infra/mail/mailer';
import { PlanCatalogService } from '../workspaces/plan-catalog.service';
import { WorkspaceRepository } from '../workspaces/workspace.repository';
import { toWorkspaceView, WorkspaceView } from '../workspaces/workspace.view';
import { generateOtp, hashOtp, OTP_MAX_FAILED_ATTEMPTS, OTP_TTL_MS, verifyOtp } from './otp';
import { SignupCodeRepository } from './signup-code.repository';
import { SignupPolicyService } from './signup-policy.service';
import { suspendedError } from '../workspaces/suspension';

export interface SignupResult {
  workspace: WorkspaceView;
  api_key: CreatedApiKey;
  verification: { sent_to: string; expires_at: string };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

@Injectable()
export class SignupService {
  private readonly logger = new Logger('Signup');

  constructor(
    private readonly transactions: TransactionRepository,
    private readonly workspaces: WorkspaceRepository,
    private readonly codes: SignupCodeRepository,
    private readonly apiKeys: ApiKeysService,
    private readonly mailer: Mailer,
    private readonly plans: PlanCatalogService,
    private readonly policy: SignupPolicyService,
  ) {}

  /**
   * Creates the workspace, or asks to re-key the existing one for this email. Either way the key
   * returned is pending: it works only after POST /v1/signup/verify with the emailed code and this
   * key, so knowing an email alone changes nothing. Existing keys keep working until then. The mail
   * goes out inside the transaction, so a failed send changes nothing.
   */
  async signup(workspaceName: string, rawEmail: string): Promise<SignupResult> {
    const email = normalizeEmail(rawEmail);
    this.policy.assertAllowed(email);
    const code = generateOtp();
    const codeHash = await hashOtp(code);
    const expiresAt = new Date(Date.now() + OTP_TTL_MS);

    return this.transactions.run(async (tx) => {
      // Serialises concurrent signups for one email (the unique index would reject the loser anyway).
      await this.workspaces.lockEmail(tx, email);
      let workspace = await this.workspaces.findByEmail(tx, email);
      const repeat = workspace !== null;
      if (workspace?.suspendedAt) throw suspendedError();
      if (workspace) {
        // An older pending request dies with its code (its pending key with it).
        await this.codes.invalidateOpen(tx, workspace.id);
      } else {
        workspace = await this.workspaces.insert(tx, { id: newId('ws'), name: workspaceName, email, emailVerifiedAt: null, plan: this.plans.defaultPlan });
      }
      const codeId = newId('otp');
      await this.codes.insert(tx, { id: codeId, workspaceId: workspace.id, codeHash, expiresAt });
      const apiKey = await this.apiKeys.create(workspace.id, 'signup', tx, codeId);
      await this.sendCode(email, code, repeat ? workspace.name : null);
      return {
        workspace: toWorkspaceView(workspace),
        api_key: apiKey,
        verification: { sent_to: email, expires_at: expiresAt.toISOString() },
      };
    });
  }

  /**
   * Activates the pending key that the caller holds (`key`, sent as Authorization: Bearer) with
   * the code from the mailbox: only a party holding both gets a working key. On success the
   * workspace's other keys are revoked (a repeat signup rotates the key).
   */
  async verify(rawEmail: string, code: string, key: string | null): Promise<WorkspaceView> {
    if (!key) {
      throw new ApiError('unauthorized', 'Send the API key that POST /v1/signup returned as Authorization: Bearer <API_KEY>, with the emailed code in the body');
    }
    const email = normalizeEmail(rawEmail);
    return this.transactions.run(async (tx) => {
      const workspace = await this.workspaces.findByEmail(tx, email);
      if (!workspace) throw new ApiError('not_found', 'No workspace is registered for this email');
      if (workspace.suspendedAt) throw suspendedError();
      // Row lock: parallel guesses cannot exceed the attempt limit.
      const active = await this.codes.lockActive(tx, workspace.id);
      if (!active) {
        throw new ApiError('invalid_code', 'No active code for this email: it was used, replaced or invalidated. Call POST /v1/signup again for a new one');
      }
      if (active.expiresAt.getTime() <= Date.now()) {
        throw new ApiError('invalid_code', 'The code has expired. Call POST /v1/signup again for a new one');
      }
      const pending = await this.apiKeys.findPending(key, active.id, tx);
      if (!pending) {
        // Not a guess at the code: the attempt counter is left alone.
        throw new ApiError('unauthorized', 'This key was not issued by the latest POST /v1/signup for this email; send the key that call returned');
      }
      if (!(await verifyOtp(code, active.codeHash))) {
        const failed = active.failedAttempts + 1;
        const exhausted = failed >= OTP_MAX_FAILED_ATTEMPTS;
        await this.codes.recordFailure(tx, active.id, failed, exhausted);
        // The failed attempt must be counted even though the request fails: commit, then answer.
        return { ok: false as const, remaining: exhausted ? 0 : OTP_MAX_FAILED_ATTEMPTS - failed };
      }
      await this.codes.consume(tx, active.id);
      await this.apiKeys.activatePending(pending, tx);
      if (!workspace.emailVerifiedAt) await this.workspaces.update(workspace.id, { emailVerifiedAt: new Date() }, tx);
      return { ok: true as const, workspace: toWorkspaceView(await this.workspaces.getById(tx, workspace.id)) };
    }).then((outcome) => {
      if (outcome.ok) return outcome.workspace;
      const remaining = outcome.remaining;
      throw new ApiError(
        'invalid_code',
        remaining === 0
          ? `Wrong code; after ${OTP_MAX_FAILED_ATTEMPTS} wrong guesses the code is invalidated. Call POST /v1/signup again for a new one`
          : `Wrong code; ${remaining} ${remaining === 1 ? 'attempt' : 'attempts'} left`,
        { attempts_remaining: remaining },
      );
    });
  }

  /** `existingWorkspace`: the name of the workspace a repeat signup asks to re-key. */
  private async sendCode(email: string, code: string, existingWorkspace: string | null): Promise<void> {
    const minutes = OTP_TTL_MS / 60_000;
    const text = existingWorkspace === null
      ? `Your verification code is ${code}.\n\nIt expires in ${minutes} minutes. Send it to POST /v1/signup/verify with this email address, ` +
        `using the API key the signup returned as Authorization: Bearer.\nIf you did not sign up, ignore this message.\n`
      : `A new API key was requested for your workspace "${existingWorkspace}". Your verification code is ${code}.\n\n` +
        `Verifying it (POST /v1/signup/verify with this email address, using the new key as Authorization: Bearer) activates the new key ` +
        `and revokes every other key of the workspace.\n` +
        `If you did not ask for this, ignore this message: your current keys keep working and the request expires in ${minutes} minutes.\n`;
    try {
      await this.mailer.send({ to: email, subject: existingWorkspace === null ? 'Your workspace verification code' : 'A new API key was requested for your workspace', text });
    } catch (error) {
      this.logger.error(`Sending the verification email failed: ${(error as Error).message}`);
      throw new ApiError('unavailable', 'The verification email could not be sent; nothing was changed. Try again shortly');
    }
  }
}
