import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import type { AppConfig, SignupPolicyService as SignupPolicySettings } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

/**
 * Who may create a workspace without the operator (SIGNUP_MODE, SIGNUP_EMAIL_DOMAINS). Closed:
 * POST /v1/signup is refused and OIDC sign-in reaches only existing workspaces; the admin API
 * still creates workspaces. Refusals are 403 `forbidden` saying why.
 */
@Injectable()
export class SignupPolicyService {
  private readonly settings: SignupPolicySettings;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.settings = config.signup;
  }

  /** What `/v1/capabilities` (onboarding) tells agents. */
  describe(): { mode: 'open' | 'closed'; email_domains: string[] | null } {
    return { mode: this.settings.mode, email_domains: this.settings.emailDomains.length > 0 ? this.settings.emailDomains : null };
  }

  /** A workspace is about to be created (or re-keyed by a repeat signup) for `email`. */
  assertAllowed(email: string): void {
    if (this.settings.mode === 'closed') {
      throw new ApiError('forbidden', 'Signup is closed on this service; ask its operator for a workspace', { signup_mode: 'closed' });
    }
    const domains = this.settings.emailDomains;
    const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
    if (domains.length > 0 && !domains.includes(domain)) {
      throw new ApiError('forbidden', `Signup on this service is limited to email addresses at ${domains.join(', ')}`, { email_domains: domains });
    }
  }
}
