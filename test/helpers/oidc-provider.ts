import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, JWK, SignJWT } from 'jose';

type KeyLike = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

/** A loopback identity provider: a key pair of the test's own and its JWKS served over HTTP. */
export class TestOidcProvider {
  readonly issuer = 'https://issuer.test.local';
  readonly audience = 'video-service-test';
  private server!: Server;
  private privateKey!: KeyLike;
  private jwk!: JWK;
  jwksUrl = '';
  jwksRequests = 0;

  async start(): Promise<void> {
    const pair = await generateKeyPair('RS256');
    this.privateKey = pair.privateKey;
    this.jwk = { ...(await exportJWK(pair.publicKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
    this.server = createServer((req, res) => {
      this.jwksRequests += 1;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ keys: [this.jwk] }));
    });
    this.server.listen(0, '127.0.0.1');
    await new Promise((resolve) => this.server.once('listening', resolve));
    this.jwksUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/jwks.json`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server.close(resolve));
  }

  env(): Record<string, string> {
    return { OIDC_ISSUER: this.issuer, OIDC_AUDIENCE: this.audience, OIDC_JWKS_URL: this.jwksUrl };
  }

  async token(
    claims: { sub: string; email?: string; email_verified?: boolean; name?: string },
    options: { expiresIn?: string | number; audience?: string; issuer?: string; key?: KeyLike; kid?: string } = {},
  ): Promise<string> {
    return new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? 'test-key-1' })
      .setIssuer(options.issuer ?? this.issuer)
      .setAudience(options.audience ?? this.audience)
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? '5m')
      .sign(options.key ?? this.privateKey);
  }
}
