import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '../src/config/app-config';
import { PROJECT_ROOT } from '../src/config/paths';
import { RENDER_CHUNK_QUEUE } from '../src/renders/chunks/render-chunk-queue';
import { RENDER_QUEUE } from '../src/renders/render-queue';
import { TRANSCRIBE_QUEUE } from '../src/tasks/transcribe/transcribe-queue';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

const read = (file: string) => readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
const yamlDocs = (file: string): any[] => parseAllDocuments(read(file)).map((doc) => doc.toJS({ maxAliasCount: 100 }));

/** Every environment variable the service reads: the names app-config.ts and main.ts look up. */
function namesTheCodeReads(): Set<string> {
  const config = read('src/config/app-config.ts');
  const names = [...config.matchAll(/\b(?:str|int|oneOf|url|optionalDays)\('([A-Z][A-Z0-9_]*)'/g)].map((m) => m[1]);
  const main = read('src/main.ts');
  names.push(...[...main.matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]));
  return new Set(names);
}

const PORT = loadConfig({}).port;
const IMAGE_TAG = /tag="\$\{1:-([^}]+)\}"/.exec(read('scripts/build-image.sh'))![1];

interface Container {
  where: string;
  role: string;
  image: string;
  /** Literal values; those from a Secret or ConfigMap as `<from …>`. */
  env: Record<string, string>;
  ports: number[];
  probes: Record<string, string>;
}

/** A value the ConfigMap of deploy/kubernetes/config.yaml holds. */
function configMapValue(from: any): string | undefined {
  if (!from?.configMapKeyRef) return undefined;
  const config = yamlDocs('deploy/kubernetes/config.yaml')[0];
  expect(from.configMapKeyRef.name).toBe(config.metadata.name);
  const value = config.data[from.configMapKeyRef.key];
  expect([from.configMapKeyRef.key, value]).toEqual([from.configMapKeyRef.key, expect.any(String)]);
  return value;
}

function kubernetesContainers(file: string, docs: any[]): Container[] {
  return docs
    .filter((doc) => doc.kind === 'Deployment' || (doc.kind === 'Service' && doc.apiVersion === 'serving.knative.dev/v1'))
    .flatMap((doc) =>
      doc.spec.template.spec.containers.map((c: any): Container => {
        const env: Record<string, string> = Object.fromEntries(
          (c.env ?? []).map((e: any) => [e.name, e.value ?? configMapValue(e.valueFrom) ?? `<from ${JSON.stringify(e.valueFrom)}>`]),
        );
        const namedPorts = Object.fromEntries((c.ports ?? []).map((p: any) => [p.name, p.containerPort]));
        const probes = Object.fromEntries(
          ['startupProbe', 'livenessProbe', 'readinessProbe']
            .filter((kind) => c[kind])
            .map((kind) => {
              const port = c[kind].httpGet.port;
              return [kind, `${typeof port === 'string' ? namedPorts[port] : port}${c[kind].httpGet.path}`];
            }),
        );
        return { where: `${file} ${doc.metadata.name}`, role: env.ROLE, image: c.image, env, ports: (c.ports ?? []).map((p: any) => p.containerPort), probes };
      }),
    );
}

/** compose's `${NAME:-default}` and `${NAME:?message}` as an operator starting it would get them. */
function composeValue(value: string, given: Record<string, string>): string {
  return value.replace(/\$\{([A-Z_]+)(?::-([^}]*)|:\?[^}]*)?\}/g, (_, name: string, fallback?: string) => given[name] ?? fallback ?? '');
}

function composeContainers(): Container[] {
  const doc: any = parse(read('deploy/compose.yaml'), { merge: true });
  const given = { STORAGE_SIGNING_SECRET: 'x'.repeat(64) };
  return ['api', 'worker'].map((name) => {
    const service = doc.services[name];
    const env = Object.fromEntries(Object.entries(service.environment).map(([k, v]) => [k, composeValue(String(v), given)]));
    const health = composeValue(service.healthcheck.test.join(' '), given);
    return {
      where: `deploy/compose.yaml ${name}`,
      role: env.ROLE,
      image: composeValue(service.image, given),
      env,
      ports: (service.ports ?? []).map((p: string) => Number(composeValue(p, given).split(':').pop())),
      probes: { healthcheck: `${/127\.0\.0\.1:(\d+)/.exec(health)![1]}${/(\/v1\/\w+)/.exec(health)![1]}` },
    };
  });
}

describe('deployment files (deploy/, Dockerfile)', () => {
  const known = namesTheCodeReads();
  const compose = composeContainers();
  const kubernetes = [
    ...kubernetesContainers('deploy/kubernetes/api.yaml', yamlDocs('deploy/kubernetes/api.yaml')),
    ...kubernetesContainers('deploy/kubernetes/worker.yaml', yamlDocs('deploy/kubernetes/worker.yaml')),
  ];
  const cloudRun = [
    ...kubernetesContainers('deploy/cloud-run/api.yaml', yamlDocs('deploy/cloud-run/api.yaml')),
    ...kubernetesContainers('deploy/cloud-run/worker.yaml', yamlDocs('deploy/cloud-run/worker.yaml')),
  ];
  const all = [...compose, ...kubernetes, ...cloudRun];

  it('runs an api and workers in each, from the image, on the port the service listens on', () => {
    for (const set of [compose, kubernetes, cloudRun]) expect(set.map((c) => c.role).sort()).toEqual(['api', 'worker']);
    expect(IMAGE_TAG).toBe('video-render-service:local');
    for (const c of compose) expect(c.image).toBe(IMAGE_TAG);
    // Kustomize swaps the name `video-render-service` for the operator's repository and tag.
    const kustomization: any = parse(read('deploy/kubernetes/kustomization.yaml'));
    expect(kustomization.images).toEqual([{ name: 'video-render-service', newName: 'video-render-service', newTag: IMAGE_TAG.split(':')[1] }]);
    for (const c of kubernetes) expect(c.image).toBe('video-render-service');
    for (const c of cloudRun) expect(c.image).toMatch(/\/video-render-service:[\w.-]+$/);
    expect(compose.find((c) => c.role === 'api')!.ports).toEqual([PORT]);
    for (const c of [...kubernetes, ...cloudRun]) expect([c.where, c.ports]).toEqual([c.where, [PORT]]);
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/^EXPOSE 8080$/m);
    expect(dockerfile).toContain(`PORT=${PORT}`);
    // The toolchain's Node is the one package-lock.json pins.
    const lock = JSON.parse(read('package-lock.json'));
    expect(/^ARG NODE_VERSION=(.+)$/m.exec(dockerfile)![1]).toBe(lock.packages['node_modules/node'].version);
    expect(dockerfile).toMatch(/^FROM debian:bookworm-slim AS build$/m);
    expect(dockerfile).toMatch(/^USER app$/m);
  });

  it('probes /v1/health and /v1/ready, which the service serves', () => {
    const paths = Object.keys(JSON.parse(read('openapi/openapi.json')).paths);
    expect(paths).toEqual(expect.arrayContaining(['/v1/health', '/v1/ready']));
    for (const c of kubernetes) {
      expect([c.where, c.probes]).toEqual([c.where, { startupProbe: `${PORT}/v1/health`, livenessProbe: `${PORT}/v1/health`, readinessProbe: `${PORT}/v1/ready` }]);
    }
    for (const c of cloudRun) expect([c.where, c.probes]).toEqual([c.where, { startupProbe: `${PORT}/v1/ready`, livenessProbe: `${PORT}/v1/health` }]);
    for (const c of compose) expect([c.where, c.probes]).toEqual([c.where, { healthcheck: `${PORT}/v1/ready` }]);
  });

  it('sets only variables the code reads, and those it needs for several instances, with valid values', () => {
    for (const c of all) {
      const unknown = Object.keys(c.env).filter((name) => !known.has(name));
      expect([c.where, unknown]).toEqual([c.where, []]);
      // Several instances: one external database and one public address.
      expect([c.where, c.env.DATABASE_URL !== undefined && c.env.PUBLIC_BASE_URL !== undefined]).toEqual([c.where, true]);
      // What the service would make of it (secret references stand in as valid values).
      const env = Object.fromEntries(
        Object.entries(c.env).map(([k, v]) => [k, v.startsWith('<from') ? ({ DATABASE_URL: 'postgres://u:p@db:5432/app', SMTP_URL: 'smtps://u:p@mail.example.com' } as Record<string, string>)[k] ?? 'secret-value' : v]),
      );
      expect(() => loadConfig(env)).not.toThrow();
    }
    // No shared disk on Kubernetes and Cloud Run: a bucket; compose shares its volume and one signing key.
    for (const c of [...kubernetes, ...cloudRun]) expect([c.where, Boolean(c.env.S3_BUCKET ?? c.env.GCS_BUCKET)]).toEqual([c.where, true]);
    for (const c of compose) expect([c.where, c.env.STORAGE_SIGNING_SECRET?.length]).toEqual([c.where, 64]);
    const config: any = yamlDocs('deploy/kubernetes/config.yaml')[0];
    for (const name of Object.keys(config.data)) expect([name, known.has(name)]).toEqual([name, true]);
  });

  it('gives workers time to finish a chunk, and Cloud Run workers their CPU between requests', () => {
    const worker = yamlDocs('deploy/kubernetes/worker.yaml')[0];
    // Longer than a chunk of bench:chunks (≈ 140 s for 450 frames at 1080p on 2 shared cores, docs/performance.md).
    expect(worker.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(180);
    const composeWorker: any = parse(read('deploy/compose.yaml'), { merge: true }).services.worker;
    expect(composeWorker.deploy.replicas).toBe(2);
    expect(composeWorker.stop_grace_period).toBe('5m');
    const runWorker = yamlDocs('deploy/cloud-run/worker.yaml')[0].spec.template.metadata.annotations;
    expect(runWorker['run.googleapis.com/cpu-throttling']).toBe('false');
    expect(Number(runWorker['autoscaling.knative.dev/minScale'])).toBeGreaterThanOrEqual(1);
  });

  describe("the KEDA trigger's query", () => {
    let app: TestApp;
    afterAll(async () => app?.close());

    it('counts render jobs waiting in the queue tables of a real database', async () => {
      const docs = yamlDocs('deploy/kubernetes/worker-scaler.yaml');
      const scaled = docs.find((doc) => doc.kind === 'ScaledObject');
      expect(scaled.spec.scaleTargetRef.name).toBe(yamlDocs('deploy/kubernetes/worker.yaml')[0].metadata.name);
      const [trigger] = scaled.spec.triggers;
      expect(trigger.type).toBe('postgresql');
      const auth = docs.find((doc) => doc.kind === 'TriggerAuthentication');
      expect(auth.spec.secretTargetRef).toEqual([{ parameter: 'connection', name: 'video-render-service', key: 'DATABASE_URL' }]);
      const queues = [...(/name IN \(([^)]*)\)/.exec(trigger.metadata.query)![1].matchAll(/'([^']+)'/g))].map((m) => m[1]);
      expect(queues).toEqual([RENDER_QUEUE.name, RENDER_CHUNK_QUEUE.name, TRANSCRIBE_QUEUE.name]);

      // An api process takes no job: a submitted render waits, and the query counts it.
      app = await startTestApp({ role: 'api' });
      const db = new Client({ connectionString: app.databaseUrl });
      await db.connect();
      try {
        const count = async () => Number((await db.query(trigger.metadata.query)).rows[0].count);
        expect(await count()).toBe(0);
        const { key } = await signupVerified(app);
        await app.http.post('/v1/renders').set(bearer(key)).send({ width: 320, height: 180, duration: 1, elements: [] }).expect(202);
        expect(await count()).toBe(1);
      } finally {
        await db.end();
      }
    });
  });
});
