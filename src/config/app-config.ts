import { existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MAX_FILE_BYTES } from '../common/limits';
import { DEFAULT_RETRY_SCHEDULE_SECONDS, parseRetrySchedule } from './retry-schedule';
import type { PlansConfig } from './plans';
import { loadPlans } from './plans-file';

/** The speech-to-text engines a deployment can choose (`TRANSCRIBE_ENGINE`). */
export const SPEECH_ENGINE_NAMES = ['pocketsphinx', 'google'] as const;
export type SpeechEngineName = (typeof SPEECH_ENGINE_NAMES)[number];
import { PROJECT_ROOT } from './paths';

/** x264's presets, fastest first. */
export const X264_PRESETS = ['ultrafast', 'superfast', 'veryfast', 'faster', 'fast', 'medium', 'slow', 'slower', 'veryslow', 'placebo'] as const;
export type X264Preset = (typeof X264_PRESETS)[number];

/** Which parts of the service this process runs. */
export type Role = 'api' | 'worker' | 'all';

export interface OidcConfig {
  issuer: string;
  audience: string;
  jwksUrl: string;
}

/** Every setting the service reads from the environment, parsed and validated once. */
export interface FontsConfig {
  /** FONT_REGISTRY_URL: an npm registry serving the @fontsource packages (default the npm registry). */
  registryUrl: string;
  /** FONT_CACHE_MAX_BYTES: fonts kept in storage beyond this are evicted, least recently used first. */
  cacheMaxBytes: number;
}

export interface AppConfig {
  port: number;
  host: string;
  /**
   * WORKER_PROCESS: in the `all` role, run the worker in a child Node process of its own (`fork`, the
   * default: the API's requests never wait behind a render's synchronous work; records 0129, 0134) or
   * inside the API's process (`inline`: one Node process, less memory).
   */
  workerProcess: 'fork' | 'inline';
  dataDir: string;
  /** Null: start the embedded PostgreSQL under `dataDir`. */
  databaseUrl: string | null;
  /** EMBEDDED_PG_PORT; null: the port DATA_DIR remembers, chosen free on first start. */
  embeddedPostgresPort: number | null;
  publicBaseUrl: string;
  /** Value for Express's `trust proxy` setting: false, true, a hop count or a list of subnets. */
  trustProxy: boolean | number | string[];
  smtpUrl: string | null;
  mailFrom: string;
  oidc: OidcConfig | null;
  logLevel: 'error' | 'warn' | 'log' | 'debug' | 'verbose';
  logFormat: 'text' | 'json';
  bodyLimit: string;
  commit: string | null;
  render: RenderConfig;
  storage: StorageConfig;
  /** Lets the guarded fetcher reach loopback and private addresses (local development, tests). */
  allowPrivateNetwork: boolean;
  /** Google Fonts families and custom font files (src/fonts). */
  fonts: FontsConfig;
  webhooks: WebhookConfig;
  transcribe: TranscribeConfig;
  /** Bearer token that `GET /metrics` requires; null: the route answers 404 (docs/decisions/0018-progress-and-metrics.md). */
  metricsToken: string | null;
  /**
   * Origins (scheme://host[:port]) whose browser pages may call `/mcp`; requests carrying another
   * `Origin` are refused. The service's own origin (PUBLIC_BASE_URL) is always allowed.
   */
  mcpAllowedOrigins: string[];
  /** `free` plus the plans of PLANS_FILE, and DEFAULT_PLAN (docs/operations.md). */
  plans: PlansConfig;
  signup: SignupPolicyService;
  /** Bearer token of the /v1/admin/ routes (ADMIN_API_KEY, ≥ 32 characters); null: they answer 404. */
  adminApiKey: string | null;
  retention: RetentionConfig;
  /**
   * SHUTDOWN_GRACE_SECONDS: on SIGTERM, how long a running job may take to finish before it is
   * handed back to the queue (without using an attempt), and in-flight requests to be answered.
   */
  shutdownGraceSeconds: number;
  database: DatabaseTimeouts;
}

/** Bounds on every database pool (TypeORM's and pg-boss's), so a stalled database fails requests fast. */
export interface DatabaseTimeouts {
  /** DATABASE_CONNECT_TIMEOUT_MS: opening a connection, or waiting for a free one in the pool. */
  connectTimeoutMs: number;
  /** DATABASE_QUERY_TIMEOUT_MS: one statement, enforced by the server and by the client (a stopped server answers nothing). */
  queryTimeoutMs: number;
}

export interface SignupPolicyService {
  /** `closed`: POST /v1/signup is refused (403); workspaces come from the admin API or OIDC sync. */
  mode: 'open' | 'closed';
  /** Lower-cased; when non-empty, open signup takes only emails of these domains. */
  emailDomains: string[];
}

export interface RetentionConfig {
  /** Render outputs are deleted this many days after the render completed; null: kept forever. */
  renderDays: number | null;
  /** Assets are deleted this many days after they were created; null: kept forever. */
  assetDays: number | null;
  /** Minutes between sweeps (RETENTION_SWEEP_MINUTES): below 60, or whole hours up to a day. */
  sweepMinutes: number;
}

export interface TranscribeConfig {
  /** The speech-to-text engine of every transcribe task. */
  engine: SpeechEngineName;
  /** Transcribe jobs one worker process runs at once. */
  concurrency: number;
  /** A JSGF grammar that constrains pocketsphinx (fixed-vocabulary deployments, tests); null: its open-vocabulary language model. */
  pocketsphinxGrammar: string | null;
}

export interface WebhookConfig {
  /** An attempt fails when the endpoint has not answered within this many seconds. */
  timeoutSeconds: number;
  /** Seconds before each retry after a failed attempt; its length + 1 is the number of attempts. */
  retryScheduleSeconds: number[];
  /** Accept plain-http webhook URLs (local development and tests); https only otherwise. */
  allowHttp: boolean;
}

export interface StorageConfig {
  /** Null: files on local disk under DATA_DIR/storage, served by the service's signed /v1/files/ route. */
  gcs: { bucket: string; apiEndpoint: string | null } | null;
  /** Any S3-compatible store (S3_BUCKET); at most one of `gcs` and `s3` is set. */
  s3: S3Config | null;
  /** Key of the local driver's URL signatures. Null: generated once into DATA_DIR/.storage-signing-secret. */
  signingSecret: string | null;
  /** Largest body a signed upload URL of the local driver accepts. */
  uploadMaxBytes: number;
  /** STORAGE_MIN_FREE_BYTES: below this much free space under DATA_DIR, `/v1/ready` reports storage failing. */
  minFreeBytes: number;
}

export interface S3Config {
  bucket: string;
  /** S3_ENDPOINT; null: AWS's endpoint for the region. */
  endpoint: string | null;
  /** S3_REGION, default us-east-1 (what most S3-compatible stores accept). */
  region: string;
  forcePathStyle: boolean;
  /** AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN) when set; null: the rest of the AWS SDK's default chain. */
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | null;
}

/** Debian's chromium-headless-shell, which scripts/chromium-offline.sh prefers. */
const HEADLESS_SHELL = '/usr/lib/chromium/chromium-headless-shell';

export interface RenderConfig {
  /** The browser Remotion drives: Debian's chromium through a wrapper that blocks every network lookup. */
  browserExecutable: string;
  /** Render jobs one worker process runs at once (Chromium saturates 2 cores with one). */
  concurrency: number;
  /**
   * Browser tabs drawing one render's frames at once when no video clip is drawn by the page
   * (`RENDER_TABS`, default: the machine's cores; never more than that, Remotion's limit). One tab
   * leaves a core idle while it waits on its frame's trip through Chromium's processes; a page
   * decoding a clip already keeps both busy, and a second one would only add memory
   * (docs/performance.md, "Drawing tabs").
   */
  tabs: number;
  /** Where the composition bundle is cached between starts (keyed by a hash of its sources). */
  cacheDir: string;
  /** A worker that stops sending heartbeats for this long is presumed dead and its job retried. */
  heartbeatSeconds: number;
  /** How often the queue looks for jobs of dead workers (pg-boss supervision). */
  superviseSeconds: number;
  /**
   * Mostly still H.264 timelines: draw each distinct frame once and let the encoder hold it
   * (`RENDER_HOLD_FRAMES`, default true; false sends every render through the browser frame by frame).
   */
  holdFrames: boolean;
  /**
   * Held renders: frames that differ only by elements' opacity (fades, cross-dissolves) are mixed
   * from a few drawn corner frames instead of drawn (`RENDER_BLEND_FADES`, default true; false
   * draws each of them, as the held path did before).
   */
  blendFades: boolean;
  /**
   * Held renders: x264 encodes each distinct picture once and the frames repeating it are written
   * as skip pictures, copies that cost the encoder nothing (`RENDER_SKIP_PICTURES`, default true;
   * x264 then runs without B-frames and with one reference, docs/decisions/0022-skip-pictures.md). false: x264
   * encodes every output frame with the preset's own settings.
   */
  skipPictures: boolean;
  /**
   * x264's preset for every H.264 render, whichever path draws it (`RENDER_X264_PRESET`, default
   * `medium`, x264's and Remotion's own default). A faster preset encodes sooner into a larger file
   * at the same CRF (docs/performance.md measures it).
   */
  x264Preset: X264Preset;
  /**
   * x264's constant rate factor for every H.264 render, whichever path draws it (`RENDER_X264_CRF`,
   * 1–51, default 18, Remotion's own): lower is closer to the drawn pictures in a larger file.
   */
  x264Crf: number;
  /**
   * Quality of the JPEG frames the browser captures on their way to the video encoder (H.264 and
   * opaque VP9; `RENDER_JPEG_QUALITY`, 1–100, default in docs/decisions/0030-composite-regions-and-parity.md). Every path captures at this
   * quality, so a clip drawn by the page and one composited by ffmpeg differ only by the capture's
   * loss.
   */
  jpegQuality: number;
  /**
   * Capture the frames the browser draws in a sequence with Chromium's BeginFrame control
   * (`RENDER_BEGIN_FRAME`: `true`, `false` (the default), or `auto`: on when the browser is the
   * headless shell, the only build that has it; docs/decisions/0108-begin-frame-capture.md). The
   * planner weighs it; false leaves every sequence to Remotion's screenshot after each frame.
   */
  beginFrame: boolean;
  /**
   * Remotion's screenshots taken within the viewport (`RENDER_SCREENSHOT_IN_VIEWPORT`, default
   * true): its `captureBeyondViewport` makes Chromium repaint the whole page for every frame
   * (docs/decisions/0109-screenshots-within-the-viewport.md); false sends them as Remotion asks.
   */
  screenshotInViewport: boolean;
  /**
   * Mix an H.264 render's sound with ffmpeg from the resolved timeline instead of taking it from
   * the browser (Remotion's audio collected while drawing, or its audio-only pass where no frame is
   * drawn by Remotion's renderMedia) (`RENDER_MIX_SOUND`, default true; false always uses the browser's).
   */
  mixSound: boolean;
  /**
   * Chunks of a whole-timeline H.264 render drawn in the browser, each a job of the `render-chunk`
   * queue that any worker process can take, joined without re-encoding (`RENDER_CHUNK_FRAMES`).
   * Unset (null): the planner sizes them and splits when more than one worker is live and it pays
   * (docs/decisions/0100-chunk-boundaries.md). N: chunks of N frames, split whenever longer. 0: never split.
   */
  chunkFrames: number | null;
  /** Follows RENDER_CHUNK_FRAMES: `auto` when unset, `always` for N, `never` for 0. */
  chunkSplit: 'auto' | 'always' | 'never';
  /**
   * Draw stills on a browser tab kept open with the composition loaded, instead of Remotion's
   * renderStill opening and loading a tab per still (`RENDER_WARM_STILLS`, default true).
   */
  warmStills: boolean;
  /**
   * Niceness (0–19) of every process a worker starts for a render (Chromium, ffmpeg), so that the
   * API and PostgreSQL on the same machine come first (`RENDER_NICENESS`, 0–19; the default 0 leaves them).
   */
  niceness: number;
  /**
   * H.264 timelines whose video clips need nothing only a browser can do: ffmpeg decodes, scales
   * and composites the clips, the browser draws only the layers around them
   * (`RENDER_COMPOSITE_MEDIA`; default in docs/decisions/0031-composite-sound-and-default.md).
   */
  compositeMedia: boolean;
  /**
   * The strategy every render takes whenever it can draw the request exactly, whatever the cost
   * model says (`RENDER_STRATEGY`: one of RENDER_STRATEGIES, or `cheapest`, the default: the
   * planner weighs them). For tests and benchmarks that exercise one strategy.
   */
  strategy: (typeof RENDER_STRATEGIES)[number] | null;
  /**
   * Identical renders are served from the earlier output (`RENDER_REUSE`, default true; a request's
   * own `reuse: false` opts out one render). The test helpers turn it off unless a file tests it.
   */
  reuse: boolean;
}

/** The render engine's strategies (src/renders/engine/strategies), by the names its plans give. */
export const RENDER_STRATEGIES = ['still', 'browser', 'held_frames', 'blended_frames', 'media_composite'] as const;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}


type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): AppConfig {
  const problems: string[] = [];
  const str = (name: string): string | null => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? null : value.trim();
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = str(name);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = str(name);
    if (raw === null) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      problems.push(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
      return fallback;
    }
    return raw as T;
  };
  const url = (name: string, protocols: string[]): string | null => {
    const raw = str(name);
    if (raw === null) return null;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) throw new Error('protocol');
      return raw;
    } catch {
      problems.push(`${name} must be a URL with scheme ${protocols.join(' or ')}`);
      return null;
    }
  };

  const port = int('PORT', 8080, 0, 65535);
  const host = str('HOST') ?? '0.0.0.0';
  const dataDir = path.resolve(str('DATA_DIR') ?? './data');
  const databaseUrl = url('DATABASE_URL', ['postgres:', 'postgresql:']);
  const embeddedPostgresPort = str('EMBEDDED_PG_PORT') === null ? null : int('EMBEDDED_PG_PORT', 0, 1024, 65535);
  const publicBaseUrl = (url('PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const trustProxy = parseTrustProxy(str('TRUST_PROXY'), problems);
  const smtpUrl = url('SMTP_URL', ['smtp:', 'smtps:']);
  const mailFrom = str('MAIL_FROM') ?? 'Video Service <no-reply@localhost>';

  const issuer = str('OIDC_ISSUER');
  const audience = str('OIDC_AUDIENCE');
  const jwksUrl = url('OIDC_JWKS_URL', ['http:', 'https:']);
  const oidcSet = [issuer, audience, str('OIDC_JWKS_URL')].filter((v) => v !== null).length;
  if (oidcSet > 0 && oidcSet < 3) {
    problems.push('OIDC_ISSUER, OIDC_AUDIENCE and OIDC_JWKS_URL must be set together');
  }
  const oidc = issuer && audience && jwksUrl ? { issuer, audience, jwksUrl } : null;

  const logLevel = oneOf('LOG_LEVEL', ['error', 'warn', 'log', 'debug', 'verbose'] as const, 'log');
  const logFormat = oneOf('LOG_FORMAT', ['text', 'json'] as const, 'text');
  const bodyLimit = str('BODY_LIMIT') ?? '10mb';
  if (!/^\d+(b|kb|mb)$/i.test(bodyLimit)) problems.push(`BODY_LIMIT must look like 512kb or 10mb (got "${bodyLimit}")`);

  const render: RenderConfig = {
    browserExecutable: str('CHROMIUM_EXECUTABLE') ?? path.join(PROJECT_ROOT, 'scripts', 'chromium-offline.sh'),
    concurrency: int('RENDER_CONCURRENCY', 1, 1, 16),
    tabs: int('RENDER_TABS', Math.min(16, os.availableParallelism()), 1, 16),
    cacheDir: path.resolve(str('RENDER_CACHE_DIR') ?? path.join(PROJECT_ROOT, 'node_modules', '.cache', 'video-service')),
    heartbeatSeconds: int('JOB_HEARTBEAT_SECONDS', 30, 10, 3600),
    superviseSeconds: int('JOB_SUPERVISE_SECONDS', 30, 1, 3600),
    holdFrames: oneOf('RENDER_HOLD_FRAMES', ['true', 'false'] as const, 'true') === 'true',
    blendFades: oneOf('RENDER_BLEND_FADES', ['true', 'false'] as const, 'true') === 'true',
    skipPictures: oneOf('RENDER_SKIP_PICTURES', ['true', 'false'] as const, 'true') === 'true',
    x264Preset: oneOf('RENDER_X264_PRESET', X264_PRESETS, 'medium'),
    x264Crf: int('RENDER_X264_CRF', 18, 1, 51),
    jpegQuality: int('RENDER_JPEG_QUALITY', 90, 1, 100),
    beginFrame: (() => {
      // Off by default: on Remotion's page the drawing, not the capture, was the cost (record 0108).
      const chosen = oneOf('RENDER_BEGIN_FRAME', ['auto', 'true', 'false'] as const, 'false');
      if (chosen !== 'auto') return chosen === 'true';
      const executable = str('CHROMIUM_EXECUTABLE');
      // The default wrapper (scripts/chromium-offline.sh) runs the headless shell where it is installed.
      return executable === null ? existsSync(HEADLESS_SHELL) : /headless[-_]shell/.test(path.basename(executable));
    })(),
    screenshotInViewport: oneOf('RENDER_SCREENSHOT_IN_VIEWPORT', ['true', 'false'] as const, 'true') === 'true',
    mixSound: oneOf('RENDER_MIX_SOUND', ['true', 'false'] as const, 'true') === 'true',
    chunkFrames: str('RENDER_CHUNK_FRAMES') === null ? null : int('RENDER_CHUNK_FRAMES', 0, 0, 1_000_000),
    chunkSplit: str('RENDER_CHUNK_FRAMES') === null ? 'auto' : int('RENDER_CHUNK_FRAMES', 0, 0, 1_000_000) === 0 ? 'never' : 'always',
    warmStills: oneOf('RENDER_WARM_STILLS', ['true', 'false'] as const, 'true') === 'true',
    niceness: int('RENDER_NICENESS', 0, 0, 19),
    compositeMedia: oneOf('RENDER_COMPOSITE_MEDIA', ['true', 'false'] as const, 'true') === 'true',
    strategy: (() => {
      const chosen = oneOf('RENDER_STRATEGY', ['cheapest', ...RENDER_STRATEGIES] as const, 'cheapest');
      return chosen === 'cheapest' ? null : chosen;
    })(),
    reuse: oneOf('RENDER_REUSE', ['true', 'false'] as const, 'true') === 'true',
  };

  const gcsBucket = str('GCS_BUCKET');
  const gcsApiEndpoint = url('GCS_API_ENDPOINT', ['http:', 'https:']);
  if (gcsApiEndpoint && !gcsBucket) problems.push('GCS_API_ENDPOINT needs GCS_BUCKET');
  const s3 = parseS3(str, url, problems);
  if (gcsBucket && s3) problems.push('GCS_BUCKET and S3_BUCKET are both set: files go to exactly one store, so unset one of them');
  const signingSecret = str('STORAGE_SIGNING_SECRET');
  if (signingSecret !== null && signingSecret.length < 32) problems.push('STORAGE_SIGNING_SECRET must be at least 32 characters');
  const storage: StorageConfig = {
    gcs: gcsBucket ? { bucket: gcsBucket, apiEndpoint: gcsApiEndpoint } : null,
    s3,
    signingSecret,
    uploadMaxBytes: int('UPLOAD_MAX_BYTES', MAX_FILE_BYTES, 1, MAX_FILE_BYTES),
    // Room for a typical render's work files and output; 0 turns the floor off.
    minFreeBytes: int('STORAGE_MIN_FREE_BYTES', 256 * 1024 * 1024, 0, Number.MAX_SAFE_INTEGER),
  };
  const allowPrivateNetwork = oneOf('ALLOW_PRIVATE_NETWORK', ['true', 'false'] as const, 'false') === 'true';
  const retrySchedule = parseRetrySchedule(str('WEBHOOK_RETRY_SCHEDULE') ?? DEFAULT_RETRY_SCHEDULE_SECONDS.join(','));
  if ('problem' in retrySchedule) problems.push(retrySchedule.problem);
  const webhooks: WebhookConfig = {
    timeoutSeconds: int('WEBHOOK_TIMEOUT_S', 10, 1, 60),
    retryScheduleSeconds: 'delays' in retrySchedule ? retrySchedule.delays : [...DEFAULT_RETRY_SCHEDULE_SECONDS],
    allowHttp: oneOf('ALLOW_HTTP_WEBHOOKS', ['true', 'false'] as const, 'false') === 'true',
  };

  const transcribe: TranscribeConfig = {
    engine: oneOf('TRANSCRIBE_ENGINE', SPEECH_ENGINE_NAMES, 'pocketsphinx'),
    concurrency: int('TRANSCRIBE_CONCURRENCY', 1, 1, 16),
    pocketsphinxGrammar: str('POCKETSPHINX_JSGF') === null ? null : path.resolve(str('POCKETSPHINX_JSGF')!),
  };

  const mcpAllowedOrigins = parseOrigins(str('MCP_ALLOWED_ORIGINS'), problems);

  const plans = loadPlans(str('PLANS_FILE') === null ? null : path.resolve(str('PLANS_FILE')!), str('DEFAULT_PLAN'), problems);
  const signup: SignupPolicyService = {
    mode: oneOf('SIGNUP_MODE', ['open', 'closed'] as const, 'open'),
    emailDomains: parseDomains(str('SIGNUP_EMAIL_DOMAINS'), problems),
  };
  const adminApiKey = str('ADMIN_API_KEY');
  if (adminApiKey !== null && adminApiKey.length < 32) problems.push('ADMIN_API_KEY must be at least 32 characters (e.g. openssl rand -hex 32)');
  const optionalDays = (name: string) => (str(name) === null ? null : int(name, 0, 1, 36_500));
  const retention: RetentionConfig = {
    renderDays: optionalDays('RENDER_RETENTION_DAYS'),
    assetDays: optionalDays('ASSET_RETENTION_DAYS'),
    sweepMinutes: int('RETENTION_SWEEP_MINUTES', 60, 1, 1440),
  };
  if (retention.sweepMinutes >= 60 && retention.sweepMinutes % 60 !== 0) {
    problems.push(`RETENTION_SWEEP_MINUTES must be below 60 or a whole number of hours (got ${retention.sweepMinutes})`);
  }
  // Below Cloud Run's 10 s and Kubernetes' 30 s, so the process exits before it is killed.
  const shutdownGraceSeconds = int('SHUTDOWN_GRACE_SECONDS', 8, 0, 3600);
  const database: DatabaseTimeouts = {
    connectTimeoutMs: int('DATABASE_CONNECT_TIMEOUT_MS', 3000, 100, 600_000),
    queryTimeoutMs: int('DATABASE_QUERY_TIMEOUT_MS', 5000, 100, 86_400_000),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  const registryUrl = (str('FONT_REGISTRY_URL') ?? 'https://registry.npmjs.org').replace(/\/+$/, '');
  if (!/^https?:\/\//.test(registryUrl)) problems.push(`FONT_REGISTRY_URL must be an http(s) URL (got "${registryUrl}")`);
  const fonts: FontsConfig = { registryUrl, cacheMaxBytes: int('FONT_CACHE_MAX_BYTES', 2 * 1024 ** 3, 1024, Number.MAX_SAFE_INTEGER) };
  return {
    fonts,
    port,
    host,
    workerProcess: oneOf('WORKER_PROCESS', ['fork', 'inline'] as const, 'fork'),
    dataDir,
    databaseUrl,
    embeddedPostgresPort,
    publicBaseUrl,
    trustProxy,
    smtpUrl,
    mailFrom,
    oidc,
    logLevel,
    logFormat,
    bodyLimit,
    commit: str('GIT_COMMIT'),
    render,
    storage,
    allowPrivateNetwork,
    webhooks,
    transcribe,
    metricsToken: str('METRICS_TOKEN'),
    mcpAllowedOrigins,
    plans,
    signup,
    adminApiKey,
    retention,
    shutdownGraceSeconds,
    database,
  };
}

function parseDomains(raw: string | null, problems: string[]): string[] {
  if (raw === null) return [];
  const domains = raw.split(',').map((s) => s.trim().toLowerCase().replace(/^@/, '')).filter(Boolean);
  for (const domain of domains) {
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(domain)) {
      problems.push(`SIGNUP_EMAIL_DOMAINS must list domains such as example.com (got "${domain}")`);
    }
  }
  return domains;
}

function parseS3(str: (name: string) => string | null, url: (name: string, protocols: string[]) => string | null, problems: string[]): S3Config | null {
  const bucket = str('S3_BUCKET');
  const endpoint = url('S3_ENDPOINT', ['http:', 'https:']);
  const region = str('S3_REGION') ?? 'us-east-1';
  const pathStyle = str('S3_FORCE_PATH_STYLE') ?? 'false';
  if (pathStyle !== 'true' && pathStyle !== 'false') problems.push(`S3_FORCE_PATH_STYLE must be true or false (got "${pathStyle}")`);
  if (!bucket) {
    const stray = ['S3_ENDPOINT', 'S3_REGION', 'S3_FORCE_PATH_STYLE'].filter((name) => str(name) !== null);
    if (stray.length > 0) problems.push(`${stray.join(', ')} ${stray.length > 1 ? 'need' : 'needs'} S3_BUCKET`);
    return null;
  }
  const accessKeyId = str('AWS_ACCESS_KEY_ID');
  const secretAccessKey = str('AWS_SECRET_ACCESS_KEY');
  if ((accessKeyId === null) !== (secretAccessKey === null)) problems.push('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together');
  const sessionToken = str('AWS_SESSION_TOKEN') ?? undefined;
  return {
    bucket,
    endpoint,
    region,
    forcePathStyle: pathStyle === 'true',
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey, sessionToken } : null,
  };
}

function parseOrigins(raw: string | null, problems: string[]): string[] {
  if (raw === null) return [];
  const origins: string[] = [];
  for (const item of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    try {
      const parsed = new URL(item);
      if (!['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== item.replace(/\/$/, '')) throw new Error('not an origin');
      origins.push(parsed.origin);
    } catch {
      problems.push(`MCP_ALLOWED_ORIGINS must list origins such as https://app.example.com (got "${item}")`);
    }
  }
  return origins;
}

function parseTrustProxy(raw: string | null, problems: string[]): AppConfig['trustProxy'] {
  if (raw === null || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const subnets = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (subnets.every((s) => /^[0-9a-fA-F:.]+(\/\d+)?$/.test(s) || ['loopback', 'linklocal', 'uniquelocal'].includes(s))) {
    return subnets;
  }
  problems.push('TRUST_PROXY must be false, true, a number of proxy hops, or a comma-separated list of subnets');
  return false;
}
