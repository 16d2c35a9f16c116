import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { near, pixelAt, waitFor } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

/**
 * Projects against the real app and database: CRUD, ops batches (RFC 6902, versions, 409, 422 at
 * /ops/N), templates with variables rendered to a png whose pixels are checked, and workspace
 * isolation on every route.
 */
describe('projects', () => {
  let app: TestApp;
  let key: string;
  const outputs = mkdtempSync(path.join(tmpdir(), 'vrs-project-outputs-'));

  beforeAll(async () => {
    app = await startTestApp({ role: 'all' });
    ({ key } = await signupVerified(app));
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    rmSync(outputs, { recursive: true, force: true });
  });

  const template = {
    width: 160,
    height: 90,
    output_format: 'png',
    background_color: '{{bg}}',
    elements: [
      { type: 'text', id: 'title', text: 'Hello {{who}}', time: 0, duration: 1, fill_color: '#ffffff' },
      { type: 'shape', id: 'box', shape: 'rectangle', x: '0%', y: '0%', width: '25%', height: '25%', fill_color: '{{box}}', time: 0, duration: 1 },
    ],
  };

  async function create(body: object, withKey = key) {
    return app.http.post('/v1/projects').set(bearer(withKey)).send(body);
  }

  async function finish(id: string) {
    return waitFor(
      async () => (await app.http.get(`/v1/renders/${id}`).set(bearer(key)).expect(200)).body,
      (job) => ['completed', 'failed', 'cancelled'].includes(job.status),
      120_000,
      100,
    );
  }

  async function download(id: string, name: string): Promise<string> {
    const res = await app.http.get(`/v1/renders/${id}/download`).set(bearer(key)).expect(200);
    const file = await fetch(res.body.url);
    expect(file.status).toBe(200);
    const target = path.join(outputs, name);
    writeFileSync(target, Buffer.from(await file.arrayBuffer()));
    return target;
  }

  it('creates, reads (summary and full), lists with a cursor and deletes', async () => {
    const made = await create({ name: 'Promo', render_request: template, variables: { bg: '#0000ff', who: 'world', box: '#00ff00' } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'Promo', version: 1, variables: { bg: '#0000ff' } });
    expect(made.body.id).toMatch(/^proj_/);

    const summary = await app.http.get(`/v1/projects/${made.body.id}`).set(bearer(key)).expect(200);
    expect(summary.body.render_request).toBeUndefined();
    expect(summary.body.summary).toEqual({
      width: 160,
      height: 90,
      duration: 1,
      frame_rate: 30,
      output_format: 'png',
      element_count: 2,
      transition_count: 0,
      renders_count: 0,
      elements: [
        { type: 'text', id: 'title', time: 0, duration: 1, label: 'Hello {{who}}', source: null },
        { type: 'shape', id: 'box', time: 0, duration: 1, label: null, source: null },
      ],
    });
    const full = await app.http.get(`/v1/projects/${made.body.id}?view=full`).set(bearer(key)).expect(200);
    expect(full.body.render_request).toEqual(template);
    expect((await app.http.get(`/v1/projects/${made.body.id}?view=everything`).set(bearer(key))).status).toBe(422);

    const second = await create({ name: 'Second', render_request: { width: 32, height: 32 } });
    const third = await create({ name: 'Third', render_request: {} });
    const page = await app.http.get('/v1/projects?limit=2').set(bearer(key)).expect(200);
    expect(page.body.data.map((p: { id: string }) => p.id)).toEqual([third.body.id, second.body.id]);
    expect(page.body.data[0].render_request).toBeUndefined();
    expect(page.body.has_more).toBe(true);
    const next = await app.http.get(`/v1/projects?limit=2&cursor=${page.body.next_cursor}`).set(bearer(key)).expect(200);
    expect(next.body.data.map((p: { id: string }) => p.id)).toEqual([made.body.id]);
    expect(next.body.has_more).toBe(false);

    await app.http.delete(`/v1/projects/${third.body.id}`).set(bearer(key)).expect(204);
    expect((await app.http.get(`/v1/projects/${third.body.id}`).set(bearer(key))).status).toBe(404);
    expect((await app.http.delete(`/v1/projects/${third.body.id}`).set(bearer(key))).status).toBe(404);
  });

  it('refuses invalid templates and variables with pointers, and keeps nothing', async () => {
    const bad = await create({ name: 'Bad', render_request: { elements: [{ type: 'txt' }] } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('invalid_request');
    expect(bad.body.error.details.errors[0]).toMatchObject({ pointer: '/render_request/elements/0/type', suggestion: 'text' });
    const noHeight = await create({ name: 'Bad', render_request: { width: 100 } });
    expect(noHeight.body.error.details.errors[0].pointer).toBe('/render_request/height');

    // A placeholder whose default is no colour is judged with the default filled in.
    const badDefault = await create({ name: 'Bad default', render_request: { background_color: '{{bg}}' }, variables: { bg: 'blue' } });
    expect(badDefault.status).toBe(422);
    expect(badDefault.body.error.details.errors[0].pointer).toBe('/render_request/background_color');

    const badNames = await create({ name: 'Vars', render_request: {}, variables: { 'no spaces': 'x', 'brand.palette.primary': '#fff', n: 3 } });
    expect(badNames.status).toBe(422);
    expect(badNames.body.error.details.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(
      ['/variables/brand.palette.primary', '/variables/n', '/variables/no spaces'].sort(),
    );
    expect((await create({ render_request: {} })).status).toBe(422);
    expect((await create({ name: 'x', render_request: {}, extra: 1 })).body.error.details.errors[0].type).toBe('extra_forbidden');

    const list = await app.http.get('/v1/projects?limit=200').set(bearer(key)).expect(200);
    expect(list.body.data.map((p: { name: string }) => p.name)).not.toEqual(expect.arrayContaining(['Bad', 'Bad default', 'Vars']));
  });

  it('applies ops batches atomically, bumps the version, answers 409 on a stale base and 422 at /ops/N', async () => {
    const made = await create({ name: 'Ops', render_request: { width: 64, height: 36, background_color: '#000000', elements: [] } });
    const id = made.body.id;
    const ops = (body: object) => app.http.post(`/v1/projects/${id}/ops`).set(bearer(key)).send(body);

    const applied = await ops({
      base_version: 1,
      ops: [
        { op: 'test', path: '/background_color', value: '#000000' },
        { op: 'replace', path: '/background_color', value: '#ff0000' },
        { op: 'add', path: '/elements/-', value: { type: 'shape', id: 's1', shape: 'ellipse', fill_color: '#00ff00' } },
      ],
    });
    expect(applied.status).toBe(200);
    expect(applied.body.version).toBe(2);
    expect(applied.body.render_request.background_color).toBe('#ff0000');
    expect(applied.body.render_request.elements).toHaveLength(1);

    const stale = await ops({ base_version: 1, ops: [{ op: 'replace', path: '/width', value: 32 }] });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('conflict');
    expect(stale.body.error.details.current_version).toBe(2);

    const failedTest = await ops({ ops: [{ op: 'replace', path: '/width', value: 32 }, { op: 'test', path: '/width', value: 99 }] });
    expect(failedTest.status).toBe(422);
    expect(failedTest.body.error.details.errors[0]).toMatchObject({ pointer: '/ops/1', type: 'test_failed' });

    const unresolvable = await ops({ ops: [{ op: 'remove', path: '/elements/5' }] });
    expect(unresolvable.status).toBe(422);
    expect(unresolvable.body.error.details.errors[0].pointer).toBe('/ops/0');
    // The request has no duration: the second op fails, and the error names it, not the first.
    const secondFails = await ops({
      ops: [
        { op: 'add', path: '/elements/-', value: { type: 'shape', id: 's2', fill_color: '#0000ff' } },
        { op: 'replace', path: '/duration', value: 3 },
      ],
    });
    expect(secondFails.status).toBe(422);
    expect(secondFails.body.error.details.errors).toEqual([
      expect.objectContaining({ pointer: '/ops/1', loc: ['body', 'ops', 1], type: 'value_error', msg: expect.stringMatching(/"add" sets a missing one/) }),
    ]);
    const thirdFails = await ops({ ops: [{ op: 'replace', path: '/width', value: 32 }, { op: 'add', path: '/width', value: 40 }, { op: 'move', from: '/nowhere', path: '/x' }] });
    expect(thirdFails.body.error.details.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/ops/2']);

    // The patch applies, but the result is no render request: the op and the place are named.
    const invalid = await ops({ ops: [{ op: 'replace', path: '/width', value: 48 }, { op: 'replace', path: '/elements/0/fill_color', value: 'green' }] });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.details.errors).toEqual([
      expect.objectContaining({ pointer: '/ops/1', document_pointer: '/elements/0/fill_color', type: 'string_pattern_mismatch' }),
    ]);
    const removeHeight = await ops({ ops: [{ op: 'remove', path: '/height' }] });
    expect(removeHeight.body.error.details.errors[0]).toMatchObject({ pointer: '/ops/0', document_pointer: '/height' });

    for (const path of ['/__proto__/polluted', '/elements/0/constructor', '/metadata/prototype']) {
      const refused = await ops({ ops: [{ op: 'add', path, value: 1 }] });
      expect(refused.status).toBe(422);
      expect(refused.body.error.details.errors[0].pointer).toBe('/ops/0');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const badShape = await ops({ ops: [{ op: 'rename', path: '/width' }, { op: 'add', path: 'width', value: 1 }, { op: 'add', path: '/x' }] });
    expect(badShape.body.error.details.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/ops/0', '/ops/1', '/ops/2']);
    expect((await ops({ ops: [] })).status).toBe(422);
    expect((await ops({})).status).toBe(422);

    // Nothing of the refused batches stuck.
    const after = await app.http.get(`/v1/projects/${id}?view=full`).set(bearer(key)).expect(200);
    expect(after.body.version).toBe(2);
    expect(after.body.render_request).toEqual({
      width: 64,
      height: 36,
      background_color: '#ff0000',
      elements: [{ type: 'shape', id: 's1', shape: 'ellipse', fill_color: '#00ff00' }],
    });

    // Concurrent batches on one base: exactly one wins, the other is 409.
    const racers = await Promise.all([32, 48].map((width) => ops({ base_version: 2, ops: [{ op: 'replace', path: '/width', value: width }] })));
    expect(racers.map((r) => r.status).sort()).toEqual([200, 409]);
    expect((await app.http.get(`/v1/projects/${id}`).set(bearer(key))).body.version).toBe(3);
  });

  it('renders a project with its variables (pixels show them), records project_id and version, and filters renders by project', async () => {
    const made = await create({ name: 'Colours', render_request: template, variables: { bg: '#0000ff', who: 'world', box: '#00ff00' } });
    const id = made.body.id;
    await app.http.post(`/v1/projects/${id}/ops`).set(bearer(key)).send({ ops: [{ op: 'replace', path: '/elements/0/text', value: 'Hi {{who}}' }] }).expect(200);

    const first = await app.http.post(`/v1/projects/${id}/renders`).set(bearer(key)).send({});
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ project_id: id, project_version: 2, ok: true });
    const overridden = await app.http
      .post(`/v1/projects/${id}/renders`)
      .set(bearer(key))
      .set('Idempotency-Key', 'proj-render-1')
      .send({ variables: { bg: '#ff0000' } });
    expect(overridden.status).toBe(202);
    const replay = await app.http
      .post(`/v1/projects/${id}/renders`)
      .set(bearer(key))
      .set('Idempotency-Key', 'proj-render-1')
      .send({ variables: { bg: '#ff0000' } });
    expect(replay.status).toBe(200);
    expect(replay.body.id).toBe(overridden.body.id);
    const reused = await app.http.post(`/v1/projects/${id}/renders`).set(bearer(key)).set('Idempotency-Key', 'proj-render-1').send({ variables: { bg: '#00ff00' } });
    expect(reused.status).toBe(409);

    for (const [job, background] of [
      [first.body.id, [0, 0, 255]],
      [overridden.body.id, [255, 0, 0]],
    ] as const) {
      expect((await finish(job)).status).toBe('completed');
      const png = await download(job, `${job}.png`);
      expect(near(await pixelAt(png, 0, 150, 80), [...background])).toBe(true);
      expect(near(await pixelAt(png, 0, 10, 10), [0, 255, 0])).toBe(true);
    }
    const stored = await app.running.app.get(DataSource).query(`SELECT request FROM jobs WHERE id = $1`, [first.body.id]);
    expect(stored[0].request.elements[0].text).toBe('Hi world');

    const missing = await create({ name: 'Missing', render_request: { width: 32, height: 32, elements: [{ type: 'text', text: '{{headline}}' }] } });
    expect(missing.status).toBe(201);
    const noValue = await app.http.post(`/v1/projects/${missing.body.id}/renders`).set(bearer(key)).send({});
    expect(noValue.status).toBe(422);
    expect(noValue.body.error.details.errors[0]).toMatchObject({ type: 'missing', pointer: '/render_request/elements/0/text' });
    expect(noValue.body.error.details.errors[0].msg).toContain('{{headline}}');
    // Substituted values are type-checked: a variable that is no colour fails where it lands.
    const notColour = await app.http.post(`/v1/projects/${id}/renders`).set(bearer(key)).send({ variables: { bg: 'ultraviolet' } });
    expect(notColour.status).toBe(422);
    expect(notColour.body.error.details.errors[0].pointer).toBe('/background_color');
    const badVars = await app.http.post(`/v1/projects/${id}/renders`).set(bearer(key)).send({ variables: { bg: 7 } });
    expect(badVars.body.error.details.errors[0].pointer).toBe('/variables/bg');

    const byProject = await app.http.get(`/v1/renders?project_id=${id}`).set(bearer(key)).expect(200);
    expect(byProject.body.data.map((j: { id: string }) => j.id).sort()).toEqual([first.body.id, overridden.body.id].sort());
    const withCount = await app.http.get(`/v1/projects/${id}`).set(bearer(key)).expect(200);
    expect(withCount.body.summary.renders_count).toBe(2);

    // Deleting the project leaves its renders, still naming it.
    await app.http.delete(`/v1/projects/${id}`).set(bearer(key)).expect(204);
    const kept = await app.http.get(`/v1/renders/${first.body.id}`).set(bearer(key)).expect(200);
    expect(kept.body).toMatchObject({ project_id: id, project_version: 2, status: 'completed' });
    expect((await app.http.get(`/v1/renders?project_id=${id}`).set(bearer(key)).expect(200)).body.data).toHaveLength(2);
    expect((await app.http.post(`/v1/projects/${id}/renders`).set(bearer(key)).send({})).status).toBe(404);
  });

  it("answers 404 for another workspace's project on every route, and holds the per-workspace cap", async () => {
    const mine = await create({ name: 'Mine', render_request: { width: 32, height: 32 } });
    const other = await signupVerified(app);
    const id = mine.body.id;
    const attempts = [
      app.http.get(`/v1/projects/${id}`).set(bearer(other.key)),
      app.http.get(`/v1/projects/${id}?view=full`).set(bearer(other.key)),
      app.http.post(`/v1/projects/${id}/ops`).set(bearer(other.key)).send({ ops: [{ op: 'replace', path: '/width', value: 64 }] }),
      app.http.post(`/v1/projects/${id}/renders`).set(bearer(other.key)).send({}),
      app.http.delete(`/v1/projects/${id}`).set(bearer(other.key)),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await app.http.get('/v1/projects').set(bearer(other.key)).expect(200)).body.data).toEqual([]);
    const still = await app.http.get(`/v1/projects/${id}?view=full`).set(bearer(key)).expect(200);
    expect(still.body).toMatchObject({ version: 1, render_request: { width: 32 } });

    // The cap (500 on the free plan): fill the other workspace to one short, then two creates.
    await app.running.app.get(DataSource).query(
      `INSERT INTO projects (id, workspace_id, name, render_request)
       SELECT 'proj_FILL' || lpad(n::text, 4, '0'), $1, 'filler', '{}' FROM generate_series(1, 499) AS n`,
      [other.workspaceId],
    );
    expect((await create({ name: 'last', render_request: {} }, other.key)).status).toBe(201);
    const over = await create({ name: 'one too many', render_request: {} }, other.key);
    expect(over.status).toBe(403);
    expect(over.body.error.details).toEqual({ limit: 'projects', max: 500 });
  });
});
