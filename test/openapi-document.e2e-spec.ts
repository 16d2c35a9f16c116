import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { startTestApp, TestApp } from './helpers/test-app';

/**
 * The committed openapi/openapi.json (read by the linter and the typed client's generator) is the
 * document the service serves: `npm run openapi` rewrites it after a change to a route or DTO.
 */
describe('OpenAPI document', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('serves exactly the committed document', async () => {
    const served = (await app.http.get('/v1/openapi.json').expect(200)).body;
    const committed = JSON.parse(readFileSync(path.join(__dirname, '..', 'openapi', 'openapi.json'), 'utf8'));
    expect(served).toEqual(committed);
  });

  it('documents the real statuses, the API-key scheme and the envelope', async () => {
    const doc = (await app.http.get('/v1/openapi.json').expect(200)).body;
    const submit = doc.paths['/v1/renders'].post;
    expect(Object.keys(submit.responses)).toEqual(expect.arrayContaining(['200', '202', '401', '422', '429']));
    expect(submit.responses['201']).toBeUndefined();
    expect(submit.responses['202'].headers).toHaveProperty('RateLimit-Remaining');
    expect(submit.responses['429'].headers).toHaveProperty('Retry-After');
    expect(submit.parameters.map((p: { name: string }) => p.name)).toContain('Idempotency-Key');
    expect(submit.security).toEqual([{ ApiKey: [] }]);
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(JSON.stringify(doc.components.securitySchemes)).not.toMatch(/JWT/);
    expect(Object.keys(doc.paths['/v1/renders/{id}/events'].get.responses['200'].content)).toEqual(['text/event-stream']);
    expect(doc.components.schemas.ErrorEnvelope.required).toEqual(['error']);
  });
});
