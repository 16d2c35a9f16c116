import { Inject, Injectable } from '@nestjs/common';
import { createLocalJWKSet, errors as joseErrors, JSONWebKeySet, jwtVerify } from 'jose';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ApiError } from '../common/errors/api-error';

export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email: string;
  name: string | null;
}

const JWKS_TTL_MS = 10 * 60_000;
const JWKS_REFRESH_MIN_INTERVAL_MS = 30_000;
const JWKS_TIMEOUT_MS = 5_000;

/**
 * Verifies OIDC ID tokens against the issuer's JWKS (OIDC_JWKS_URL, operator configuration, not
 * user input). Keys are cached for 10 minutes and refetched early, at most every 30 s, when a
 * token names a key id the cache lacks (the issuer rotated its keys).
 */
@Injectable()
export class OidcVerifierService {
  private jwks: { keys: JSONWebKeySet; fetchedAt: number } | null = null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async verify(idToken: string): Promise<VerifiedIdentity> {
    const oidc = this.config.oidc;
    if (!oidc) throw new ApiError('unavailable', 'Sign-in with an identity provider is not configured on this deployment');
    let jwks = await this.keys(false);
    if (!hasKid(jwks, idToken) && Date.now() - (this.jwks?.fetchedAt ?? 0) > JWKS_REFRESH_MIN_INTERVAL_MS) {
      jwks = await this.keys(true);
    }
    let payload;
    try {
      ({ payload } = await jwtVerify(idToken, createLocalJWKSet(jwks), {
        issuer: oidc.issuer,
        audience: oidc.audience,
        clockTolerance: 30,
      }));
    } catch (error) {
      const reason =
        error instanceof joseErrors.JWTExpired
          ? 'the token has expired'
          : error instanceof joseErrors.JWTClaimValidationFailed
            ? `claim "${error.claim}" is not valid`
            : 'the token is malformed or its signature does not verify';
      throw new ApiError('unauthorized', `Invalid ID token: ${reason}`);
    }
    if (typeof payload.sub !== 'string' || !payload.sub) throw new ApiError('unauthorized', 'Invalid ID token: no subject');
    if (typeof payload.email !== 'string' || payload.email_verified !== true) {
      throw new ApiError('email_not_verified', "The identity provider has not verified this account's primary email");
    }
    return {
      issuer: oidc.issuer,
      subject: payload.sub,
      email: payload.email,
      name: typeof payload.name === 'string' ? payload.name : null,
    };
  }

  private async keys(force: boolean): Promise<JSONWebKeySet> {
    if (!force && this.jwks && Date.now() - this.jwks.fetchedAt < JWKS_TTL_MS) return this.jwks.keys;
    try {
      const res = await fetch(this.config.oidc!.jwksUrl, { signal: AbortSignal.timeout(JWKS_TIMEOUT_MS), redirect: 'error' });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const body = (await res.json()) as JSONWebKeySet;
      if (!Array.isArray(body?.keys)) throw new Error('no keys array');
      this.jwks = { keys: body, fetchedAt: Date.now() };
      return body;
    } catch {
      // A provider outage should not lock out users whose keys we still hold.
      if (this.jwks) return this.jwks.keys;
      throw new ApiError('unavailable', "Sign-in is temporarily unavailable: the identity provider's keys could not be fetched");
    }
  }
}

function hasKid(jwks: JSONWebKeySet, token: string): boolean {
  try {
    const header = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8')) as { kid?: string };
    return !header.kid || jwks.keys.some((k) => k.kid === header.kid);
  } catch {
    return true; // malformed: let jwtVerify report it
  }
}
