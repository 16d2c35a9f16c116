import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import type { AppConfig, Role } from '../../src/config/app-config';
import { APP_CONFIG } from '../../src/config/config.module';
import { Frame, frameAt, framesOf, FolderServer, pixelAt, probe, Probe, serveFolder } from './media';
import { renderThroughApi } from './render-through-api';
import { bearer, signupVerified, startTestApp, TestApp } from './test-app';

/**
 * One started app per render test file (decision 0041): `withRenderApp` registers the file's
 * beforeAll/afterAll (fixtures made and served on loopback, the real app with its worker on a
 * database cloned from the template, a verified workspace) and returns a handle whose fields are
 * filled in by the time the tests run.
 */

export interface RenderAppSettings {
  /**
   * Over the defaults `TRUST_PROXY` and `ALLOW_PRIVATE_NETWORK` (fixtures are on loopback); a
   * function when a value names a fixture file.
   */
  env?: Record<string, string> | ((files: RenderFiles) => Record<string, string>);
  /** Default `all` (API and worker in one process). */
  role?: Role;
  /** Verified workspaces to sign up; `key` is the first one's. Default 1. */
  accounts?: number;
  /** Opens a `pg` client on the app's database as `db`, for checks of rows. */
  database?: boolean;
}

export interface RenderAppOptions extends RenderAppSettings {
  /** Names the temporary folders (`vrs-<name>-fixtures-…`, `vrs-<name>-outputs-…`). */
  name?: string;
  /** Writes the file's media into `dir`; it is then served on loopback (`mediaUrl`). */
  fixtures?: (dir: string) => Promise<void>;
  /** Leaves the outputs folder in place (and says where) when this returns true at the end. */
  keepOutputs?: () => boolean;
  /** The beforeAll's timeout. Default 180 s. */
  timeoutMs?: number;
}

/** What renderThroughApi returns (the job, the file, the submit answer), with decoders bound to the file. */
export interface RenderResult extends Awaited<ReturnType<typeof renderThroughApi>> {
  probe(): Promise<Probe>;
  frameAt(seconds?: number): Promise<Frame>;
  frames(): Promise<Frame[]>;
  pixelAt(seconds: number, x: number, y: number, options?: { vp9Alpha?: boolean }): ReturnType<typeof pixelAt>;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Authorized = { [M in Method]: (route: string) => ReturnType<TestApp['http'][M]> };

/** One started app of a file, its first verified workspace and what is bound to them. */
export class RenderAppInstance {
  private started?: { app: TestApp; accounts: Awaited<ReturnType<typeof signupVerified>>[]; db?: Client };

  constructor(private readonly outputsDir: () => string) {}

  /** @internal */
  async start(settings: RenderAppSettings, files: RenderFiles): Promise<void> {
    const env = typeof settings.env === 'function' ? settings.env(files) : settings.env;
    const app = await startTestApp({ role: settings.role ?? 'all', env: { TRUST_PROXY: 'true', ALLOW_PRIVATE_NETWORK: 'true', ...env } });
    this.started = { app, accounts: [] };
    for (let i = 0; i < (settings.accounts ?? 1); i += 1) this.started.accounts.push(await signupVerified(app));
    if (settings.database) {
      const db = new Client({ connectionString: app.databaseUrl });
      await db.connect();
      this.started.db = db;
    }
  }

  /** @internal */
  async stop(): Promise<void> {
    await this.started?.db?.end();
    await this.started?.app.close();
  }

  private get ready() {
    if (!this.started) throw new Error('the render app is not started: use its handle inside tests and hooks, not at describe time');
    return this.started;
  }

  get app(): TestApp {
    return this.ready.app;
  }
  /** The app's base URL. */
  get url(): string {
    return this.ready.app.url;
  }
  get key(): string {
    return this.ready.accounts[0].key;
  }
  get workspaceId(): string {
    return this.ready.accounts[0].workspaceId;
  }
  /** Every verified workspace signed up at start (`accounts`). */
  get accounts() {
    return this.ready.accounts;
  }
  get db(): Client {
    const { db } = this.ready;
    if (!db) throw new Error('withRenderApp({ database: true }) opens the database client');
    return db;
  }
  get config(): AppConfig {
    return this.ready.app.running.app.get<AppConfig>(APP_CONFIG);
  }

  /** Requests with the first workspace's key (or another's). */
  api(key = this.key): Authorized {
    const http = this.ready.app.http;
    const auth = bearer(key);
    return {
      get: (route) => http.get(route).set(auth),
      post: (route) => http.post(route).set(auth),
      put: (route) => http.put(route).set(auth),
      patch: (route) => http.patch(route).set(auth),
      delete: (route) => http.delete(route).set(auth),
    };
  }

  /**
   * Submits through the REST API, waits for the job to complete (asserting it does), downloads the
   * output into the outputs folder as `<name>.<format>` and binds the decoders to it.
   */
  async render(name: string, body: Record<string, unknown>, timeoutMs?: number, key = this.key): Promise<RenderResult> {
    const { job, file, submitted } = await renderThroughApi(this.ready.app, key, this.outputsDir(), name, body, timeoutMs);
    return {
      job,
      file,
      submitted,
      probe: () => probe(file),
      frameAt: (seconds = 0) => frameAt(file, seconds),
      frames: () => framesOf(file),
      pixelAt: (seconds, x, y, options) => pixelAt(file, seconds, x, y, options),
    };
  }
}

export interface RenderFiles {
  /** The folder the fixtures were written to. */
  readonly fixtures: string;
  /** A temporary folder for downloaded outputs (removed at the end). */
  readonly outputs: string;
  readonly media: FolderServer;
  /** The loopback URL of a fixture. */
  mediaUrl(name: string): string;
}

export type RenderApp = RenderAppInstance & RenderFiles;

/** The set-up most render files share, registered as the file's (or describe block's) hooks. */
export function withRenderApp(options: RenderAppOptions = {}): RenderApp {
  const { env, role, accounts, database, ...shared } = options;
  const { files, apps } = withRenderApps({ ...shared, apps: { main: { env, role, accounts, database } } });
  // One object: the app's fields and the files', so a file reads `house.key` and `house.mediaUrl(…)`.
  return new Proxy(apps.main, {
    get: (target, property, receiver) => (property in files ? Reflect.get(files, property) : Reflect.get(target, property, receiver)),
  }) as RenderApp;
}

/**
 * Several apps of one file (the same requests under different settings) on one fixture server,
 * started side by side.
 */
export function withRenderApps<Name extends string>(options: Omit<RenderAppOptions, keyof RenderAppSettings> & { apps: Record<Name, RenderAppSettings> }) {
  const prefix = `vrs-${options.name ?? 'render'}`;
  let state: { fixtures: string; outputs: string; media?: FolderServer } | undefined;
  const need = () => {
    if (!state) throw new Error('the render app is not started: use its handle inside tests and hooks, not at describe time');
    return state;
  };
  const files: RenderFiles = {
    get fixtures() {
      return need().fixtures;
    },
    get outputs() {
      return need().outputs;
    },
    get media() {
      const { media } = need();
      if (!media) throw new Error('no fixture server yet');
      return media;
    },
    mediaUrl: (name: string) => `${files.media.url}/${name}`,
  };
  const names = Object.keys(options.apps) as Name[];
  const apps = Object.fromEntries(names.map((name) => [name, new RenderAppInstance(() => files.outputs)])) as Record<Name, RenderAppInstance>;

  beforeAll(async () => {
    state = { fixtures: mkdtempSync(path.join(tmpdir(), `${prefix}-fixtures-`)), outputs: mkdtempSync(path.join(tmpdir(), `${prefix}-outputs-`)) };
    await options.fixtures?.(state.fixtures);
    state.media = await serveFolder(state.fixtures);
    const settings = options.apps as Record<Name, RenderAppSettings>;
    // Settled, not all: an app that started while another failed is still closed by afterAll.
    const started = await Promise.allSettled(names.map((name) => apps[name].start(settings[name], files)));
    for (const result of started) if (result.status === 'rejected') throw result.reason;
  }, options.timeoutMs ?? 180_000);

  afterAll(async () => {
    await Promise.all(names.map((name) => apps[name].stop()));
    await state?.media?.close();
    if (!state) return;
    rmSync(state.fixtures, { recursive: true, force: true });
    if (options.keepOutputs?.()) process.stdout.write(`outputs kept in ${state.outputs}\n`);
    else rmSync(state.outputs, { recursive: true, force: true });
  });

  return { files, apps };
}
