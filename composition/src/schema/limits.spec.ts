import { requestJsonSchema } from './json-schema';
import { metadataProblem, REQUEST_LIMITS } from './limits';
import { validateRenderRequest } from './validate';

type Node = Record<string, unknown>;

/** Every place in the JSON Schema where a request could grow without bound. */
function unbounded(node: unknown, pointer = ''): string[] {
  if (!node || typeof node !== 'object') return [];
  const n = node as Node;
  const found: string[] = [];
  if (n.type === 'string' && n.maxLength === undefined && n.enum === undefined && n.const === undefined) found.push(`string ${pointer}`);
  if (n.type === 'array' && n.maxItems === undefined && n.prefixItems === undefined) found.push(`array ${pointer}`);
  if (n.type === 'object' && typeof n.additionalProperties === 'object' && n.maxProperties === undefined && n['x-max-bytes'] === undefined) found.push(`record ${pointer}`);
  for (const [key, value] of Object.entries(n)) found.push(...unbounded(value, `${pointer}/${key}`));
  return found;
}

describe('request limits', () => {
  it('bounds every string, list and map of the request schema', () => {
    expect(unbounded(requestJsonSchema())).toEqual([]);
  });

  it('caps metadata at 16 KB serialised and depth 10', () => {
    expect(REQUEST_LIMITS.metadata_bytes).toBe(16384);
    expect(REQUEST_LIMITS.metadata_depth).toBe(10);
    expect(metadataProblem({ order: 1, tags: ['a'], nested: { deep: true } })).toBeNull();
    expect(metadataProblem({ blob: 'x'.repeat(16384) })).toMatch(/16384 bytes/);
    let deep: unknown = 1;
    for (let i = 0; i < 11; i++) deep = { d: deep };
    expect(metadataProblem(deep)).toMatch(/nested 11 levels deep/);
    let ok: unknown = 1;
    for (let i = 0; i < 9; i++) ok = { d: ok };
    expect(metadataProblem(ok)).toBeNull();
    // Multi-byte characters count as the bytes they are stored in (8200 × 2 bytes > 16384).
    expect(metadataProblem({ s: 'é'.repeat(8200) })).toMatch(/bytes/);
  });

  it('refuses oversized metadata and too many elements with a pointer', () => {
    const big = validateRenderRequest({ metadata: { blob: 'x'.repeat(20000) } });
    expect(big.ok).toBe(false);
    if (!big.ok) expect(big.errors[0]).toMatchObject({ loc: ['body', 'metadata'], pointer: '/metadata' });
    const many = validateRenderRequest({
      elements: Array.from({ length: REQUEST_LIMITS.elements + 1 }, () => ({ type: 'shape' })),
    });
    expect(many.ok).toBe(false);
    if (!many.ok) expect(many.errors[0]).toMatchObject({ pointer: '/elements', type: 'too_long' });
  });
});
