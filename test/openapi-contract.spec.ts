import { OpenApiContract } from './helpers/openapi-contract';

/** The contract checker itself, against the committed document. */
describe('OpenAPI contract checker', () => {
  const contract = OpenApiContract.fromCommittedDocument();
  const json = 'application/json; charset=utf-8';

  it('accepts a response the document describes', () => {
    expect(contract.check({ method: 'GET', url: '/v1/health', status: 200, contentType: json, body: '{"status":"ok"}' })).toEqual([]);
    const notFound = JSON.stringify({ error: { code: 'not_found', message: 'No such render', request_id: 'req_1' } });
    const found = contract.check({ method: 'GET', url: '/v1/renders/render_123?x=1', status: 404, contentType: json, body: notFound });
    expect(found).toEqual([]);
  });

  it('reports a body, a status and a content type the document does not describe', () => {
    const body = contract.check({ method: 'GET', url: '/v1/health', status: 200, contentType: json, body: '{"status":"fine"}' });
    expect(body).toHaveLength(1);
    expect(body[0].operation).toContain('GET /v1/health');
    expect(body[0].problem).toMatch(/does not match the schema.*\/status/);
    const status = contract.check({ method: 'GET', url: '/v1/health', status: 418, contentType: json, body: '{}' });
    expect(status[0].problem).toMatch(/status 418 is not documented/);
    const type = contract.check({ method: 'GET', url: '/v1/health', status: 200, contentType: 'text/html', body: '<p>ok</p>' });
    expect(type[0].problem).toMatch(/Content-Type text\/html is not documented/);
  });

  it('prefers literal path segments over templates and leaves what is not the API alone', () => {
    expect(contract.findOperation('POST', '/v1/tasks/transcribe')?.template).toBe('/v1/tasks/transcribe');
    expect(contract.findOperation('GET', '/v1/tasks/task_1')?.template).toBe('/v1/tasks/{id}');
    expect(contract.check({ method: 'GET', url: '/playground/app.js', status: 200, contentType: 'text/javascript', body: 'x' })).toEqual([]);
  });
});
