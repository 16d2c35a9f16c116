import { availableParallelism } from 'node:os';
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
      // The embedded PostgreSQL's port: the one DATA_DIR remembers unless EMBEDDED_PG_PORT is set.
      embeddedPostgresPort: null,
      trustProxy: false,
      smtpUrl: null,
      oidc: null,
      logLevel: 'log',
      logFormat: 'text',
      bodyLimit: '10mb',
    });
    // The lossy settings every render path shares, the composite path and skip pictures on.
    expect(config.render).toMatchObject({ x264Preset: 'medium', x264Crf: 18, jpegQuality: 90, compositeMedia: true, mixSound: true, skipPictures: true });
    expect(loadConfig({ RENDER_SKIP_PICTURES: 'false' }).render.skipPictures).toBe(false);
    // Drawing tabs: the machine's cores unless set; a value outside 1–16 is refused.
    expect(config.render.tabs).toBe(Math.min(16, availableParallelism()));
    expect(loadConfig({ RENDER_TABS: '1' }).render.tabs).toBe(1);
    expect(() => loadConfig({ RENDER_TABS: '0' })).toThrow(ConfigError);
    expect(loadConfig({ EMBEDDED_PG_PORT: '54329' }).embeddedPostgresPort).toBe(54329);
    expect(() => loadConfig({ EMBEDDED_PG_PORT: '80' })).toThrow(ConfigError);
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
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', OIDC_ISSUER: 'https://i', LOG_LEVEL: 'loud', TRUST_PROXY: 'maybe?', RENDER_X264_CRF: '0', RENDER_JPEG_QUALITY: '101' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'DATABASE_URL', 'OIDC_ISSUER, OIDC_AUDIENCE and OIDC_JWKS_URL', 'LOG_LEVEL', 'TRUST_PROXY', 'RENDER_X264_CRF must be an integer from 1 to 51', 'RENDER_JPEG_QUALITY must be an integer from 1 to 100']) {
      expect(problems).toContain(name);
    }
  });

  it('reads the shutdown grace and the database timeouts, with defaults below Cloud Run\'s 10 s', () => {
    expect(loadConfig({})).toMatchObject({ shutdownGraceSeconds: 8, database: { connectTimeoutMs: 3000, queryTimeoutMs: 5000 } });
    const config = loadConfig({ SHUTDOWN_GRACE_SECONDS: '0', DATABASE_CONNECT_TIMEOUT_MS: '500', DATABASE_QUERY_TIMEOUT_MS: '60000' });
    expect(config).toMatchObject({ shutdownGraceSeconds: 0, database: { connectTimeoutMs: 500, queryTimeoutMs: 60000 } });
    expect(() => loadConfig({ SHUTDOWN_GRACE_SECONDS: '-1' })).toThrow('SHUTDOWN_GRACE_SECONDS');
  });

  it('reads storage and fetching settings: local disk and no private network by default', () => {
    expect(loadConfig({})).toMatchObject({
      storage: { gcs: null, s3: null, signingSecret: null, uploadMaxBytes: 5 * 1024 ** 3 },
      allowPrivateNetwork: false,
    });
    const config = loadConfig({
      GCS_BUCKET: 'renders',
      GCS_API_ENDPOINT: 'http://127.0.0.1:4443',
      STORAGE_SIGNING_SECRET: 's'.repeat(32),
      UPLOAD_MAX_BYTES: '1048576',
      STORAGE_MIN_FREE_BYTES: '1000',
      ALLOW_PRIVATE_NETWORK: 'true',
    });
    expect(config.storage).toEqual({
      gcs: { bucket: 'renders', apiEndpoint: 'http://127.0.0.1:4443' },
      s3: null,
      signingSecret: 's'.repeat(32),
      uploadMaxBytes: 1048576,
      minFreeBytes: 1000,
    });
    expect(config.allowPrivateNetwork).toBe(true);

    let error: unknown;
    try {
      loadConfig({ GCS_API_ENDPOINT: 'http://127.0.0.1:4443', STORAGE_SIGNING_SECRET: 'short', UPLOAD_MAX_BYTES: String(6 * 1024 ** 3), ALLOW_PRIVATE_NETWORK: 'yes' });
    } catch (e) {
      error = e;
    }
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['GCS_API_ENDPOINT needs GCS_BUCKET', 'STORAGE_SIGNING_SECRET', 'UPLOAD_MAX_BYTES', 'ALLOW_PRIVATE_NETWORK']) {
      expect(problems).toContain(name);
    }
  });

  it('reads S3 settings: region us-east-1 and virtual-hosted style by default, credentials from the environment when set', () => {
    expect(loadConfig({ S3_BUCKET: 'renders' }).storage.s3).toEqual({ bucket: 'renders', endpoint: null, region: 'us-east-1', forcePathStyle: false, credentials: null });
    const config = loadConfig({
      S3_BUCKET: 'renders',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_REGION: 'auto',
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: 'AKID',
      AWS_SECRET_ACCESS_KEY: 'secret',
    });
    expect(config.storage.gcs).toBeNull();
    expect(config.storage.s3).toEqual({
      bucket: 'renders',
      endpoint: 'http://127.0.0.1:9000',
      region: 'auto',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret', sessionToken: undefined },
    });
  });

  it('refuses two stores at once, S3 settings without a bucket, and half a key pair', () => {
    const problemsOf = (env: Record<string, string>): string => {
      try {
        loadConfig(env);
      } catch (error) {
        return (error as ConfigError).problems.join('\n');
      }
      throw new Error('loadConfig accepted the settings');
    };
    expect(problemsOf({ GCS_BUCKET: 'a', S3_BUCKET: 'b' })).toBe('GCS_BUCKET and S3_BUCKET are both set: files go to exactly one store, so unset one of them');
    expect(problemsOf({ S3_ENDPOINT: 'http://127.0.0.1:9000', S3_REGION: 'eu-west-1' })).toBe('S3_ENDPOINT, S3_REGION need S3_BUCKET');
    expect(problemsOf({ S3_BUCKET: 'b', S3_ENDPOINT: 'ftp://x', S3_FORCE_PATH_STYLE: 'yes', AWS_ACCESS_KEY_ID: 'AKID' })).toBe(
      [
        'S3_ENDPOINT must be a URL with scheme http: or https:',
        'S3_FORCE_PATH_STYLE must be true or false (got "yes")',
        'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together',
      ].join('\n'),
    );
  });
});
