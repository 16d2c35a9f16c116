import * as path from 'node:path';
import { ConfigError, loadConfig } from './app-config';

describe('loadConfig', () => {
  it('gives the embedded defaults with an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      dataDir: path.resolve('./data'),
      databaseUrl: null,
      trustProxy: false,
      smtpUrl: null,
      oidc: null,
      logLevel: 'log',
      logFormat: 'text',
      bodyLimit: '10mb',
    });
  });

  it('reads production settings', () => {
    const config = loadConfig({
      PORT: '9000',
      DATABASE_URL: 'postgres://u:p@db:5432/app',
      TRUST_PROXY: '1',
      SMTP_URL: 'smtps://user:pass@mail.example.com',
      OIDC_ISSUER: 'https://issuer',
      OIDC_AUDIENCE: 'aud',
      OIDC_JWKS_URL: 'https://issuer/jwks',
      LOG_FORMAT: 'json',
    });
    expect(config.port).toBe(9000);
    expect(config.trustProxy).toBe(1);
    expect(config.oidc).toEqual({ issuer: 'https://issuer', audience: 'aud', jwksUrl: 'https://issuer/jwks' });
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback' }).trustProxy).toEqual(['10.0.0.0/8', 'loopback']);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
  });

  it('fails fast with every bad variable listed', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', OIDC_ISSUER: 'https://i', LOG_LEVEL: 'loud', TRUST_PROXY: 'maybe?' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'DATABASE_URL', 'OIDC_ISSUER, OIDC_AUDIENCE and OIDC_JWKS_URL', 'LOG_LEVEL', 'TRUST_PROXY']) {
      expect(problems).toContain(name);
    }
  });
});
