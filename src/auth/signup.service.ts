import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull } from 'typeorm';
import { ApiKeysService, CreatedApiKey } from '../api-keys/api-keys.service';
import { ApiError } from '../common/errors/api-error';
import { newId } from '../common/ids';
import { Mailer } from '../infra/mail/mailer';
import { Workspace } from '../workspaces/workspace.entity';
import { toWorkspaceView, WorkspaceView } from '../workspaces/workspace.view';
import { generateOtp, hashOtp, OTP_MAX_FAILED_ATTEMPTS, OTP_TTL_MS, verifyOtp } from './otp';
import { SignupCode } from './signup-code.entity';

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
    @InjectDataSource() private readonly db: DataSource,
    private readonly apiKeys: ApiKeysService,
    private readonly mailer: Mailer,
  ) {}

  /**
   * Creates the workspace, or re-keys the existing one for this email: its live keys are revoked,
   * the email is unverified again and a fresh code is sent. The mail goes out inside the
   * transaction, so a failed send changes nothing.
   */
  async signup(workspaceName: string, rawEmail: string): Promise<SignupResult> {
    const email = normalizeEmail(rawEmail);
    const code = generateOtp();
    const codeHash = await hashOtp(code);
    const expiresAt = new Date(Date.now() + OTP_TTL_MS);

    return this.db.transaction(async (tx) => {
      // Serialises concurrent signups for one email (the unique index would reject the loser anyway).
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`signup:${email}`]);
      let workspace = await tx.findOneBy(Workspace, { email });
      if (workspace) {
        await this.apiKeys.revokeAll(workspace.id, tx);
        await tx.update(Workspace, { id: workspace.id }, { emailVerifiedAt: null });
        await tx.update(SignupCode, { workspaceId: workspace.id, invalidatedAt: IsNull(), consumedAt: IsNull() }, { invalidatedAt: new Date() });
      } else {
        await tx.insert(Workspace, { id: newId('ws'), name: workspaceName, email, emailVerifiedAt: null, plan: 'free' });
        workspace = await tx.findOneByOrFail(Workspace, { email });
      }
      const apiKey = await this.apiKeys.create(workspace.id, 'signup', tx);
      await tx.insert(SignupCode, { id: newId('otp'), workspaceId: workspace.id, codeHash, expiresAt, failedAttempts: 0 });
      await this.sendCode(email, code);
      const fresh = await tx.findOneByOrFail(Workspace, { id: workspace.id });
      return {
        workspace: toWorkspaceView(fresh),
        api_key: apiKey,
        verification: { sent_to: email, expires_at: expiresAt.toISOString() },
      };
    });
  }

  async verify(rawEmail: string, code: string): Promise<WorkspaceView> {
    const email = normalizeEmail(rawEmail);
    return this.db.transaction(async (tx) => {
      const workspace = await tx.findOneBy(Workspace, { email });
      if (!workspace) throw new ApiError('not_found', 'No workspace is registered for this email');
      // Row lock: parallel guesses cannot exceed the attempt limit.
      const active = await tx
        .getRepository(SignupCode)
        .createQueryBuilder('c')
        .setLock('pessimistic_write')
        .where('c.workspaceId = :id AND c.consumedAt IS NULL AND c.invalidatedAt IS NULL', { id: workspace.id })
        .orderBy('c.createdAt', 'DESC')
        .getOne();
      if (!active) {
        throw new ApiError('invalid_code', 'No active code for this email: it was used, replaced or invalidated. Call POST /v1/signup again for a new one');
      }
      if (active.expiresAt.getTime() <= Date.now()) {
        throw new ApiError('invalid_code', 'The code has expired. Call POST /v1/signup again for a new one');
      }
      if (!(await verifyOtp(code, active.codeHash))) {
        const failed = active.failedAttempts + 1;
        const exhausted = failed >= OTP_MAX_FAILED_ATTEMPTS;
        await tx.update(SignupCode, { id: active.id }, { failedAttempts: failed, invalidatedAt: exhausted ? new Date() : null });
        // The failed attempt must be counted even though the request fails: commit, then answer.
        return { ok: false as const, remaining: exhausted ? 0 : OTP_MAX_FAILED_ATTEMPTS - failed };
      }
      await tx.update(SignupCode, { id: active.id }, { consumedAt: new Date() });
      await tx.update(Workspace, { id: workspace.id }, { emailVerifiedAt: new Date() });
      return { ok: true as const, workspace: toWorkspaceView(await tx.findOneByOrFail(Workspace, { id: workspace.id })) };
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

  private async sendCode(email: string, code: string): Promise<void> {
    try {
      await this.mailer.send({
        to: email,
        subject: 'Your workspace verification code',
        text: `Your verification code is ${code}.\n\nIt expires in ${OTP_TTL_MS / 60_000} minutes. Send it to POST /v1/signup/verify with this email address.\nIf you did not sign up, ignore this message.\n`,
      });
    } catch (error) {
      this.logger.error(`Sending the verification email failed: ${(error as Error).message}`);
      throw new ApiError('unavailable', 'The verification email could not be sent; nothing was changed. Try again shortly');
    }
  }
}
