import { recordedMismatches } from '../helpers/openapi-contract';

/**
 * The contract check: a test file whose app answered anything the OpenAPI document does not
 * describe fails, listing each response (operation, status, what did not match).
 */
afterAll(() => {
  const mismatches = recordedMismatches();
  if (mismatches.length === 0) return;
  const lines = mismatches.map((m) => `- ${m.operation} → ${m.status}: ${m.problem}`);
  throw new Error(`${mismatches.length} response(s) do not match openapi/openapi.json:\n${lines.join('\n')}`);
});
