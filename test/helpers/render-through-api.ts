import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { waitFor } from './media';
import { bearer, TestApp } from './test-app';

/**
 * Submits a render through the REST API, waits for it to end (it must complete), downloads the
 * artifact into `folder` as `<name>.<format>`; returns the job, the file and the submit answer.
 */
export async function renderThroughApi(
  app: Pick<TestApp, 'http'>,
  key: string,
  folder: string,
  name: string,
  body: Record<string, unknown>,
  timeoutMs = 90_000,
) {
  const submitted = await app.http.post('/v1/renders').set(bearer(key)).send(body);
  expect({ status: submitted.status, body: submitted.status === 202 ? 'accepted' : submitted.body }).toEqual({ status: 202, body: 'accepted' });
  const job = await waitFor(
    async () => (await app.http.get(`/v1/renders/${submitted.body.id}`).set(bearer(key)).expect(200)).body,
    (current) => ['completed', 'failed', 'cancelled'].includes(current.status),
    timeoutMs,
    100,
  );
  expect({ status: job.status, error: job.error }).toEqual({ status: 'completed', error: null });
  const link = await app.http.get(`/v1/renders/${job.id}/download`).set(bearer(key)).expect(200);
  const response = await fetch(link.body.url);
  expect(response.status).toBe(200);
  const file = path.join(folder, `${name}.${(body.output_format as string | undefined) ?? 'mp4'}`);
  writeFileSync(file, Buffer.from(await response.arrayBuffer()));
  return { job, file, submitted: submitted.body };
}
