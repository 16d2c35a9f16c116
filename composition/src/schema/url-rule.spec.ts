import { validateRenderRequest } from './validate';
import { httpUrlProblem } from './url-rule';

describe('the one URL rule', () => {
  it('accepts absolute http(s) URLs with a host, underscores and IDNs included', () => {
    for (const ok of ['http://my_host/a.mp4', 'https://media.example.com/a.mp4?x=1', 'http://127.0.0.1:8080/a', 'https://bücher.example/a.png']) {
      expect(httpUrlProblem(ok)).toBeNull();
    }
  });

  it('refuses what cannot be fetched, saying why', () => {
    expect(httpUrlProblem('')).toMatch(/1 to 2083 characters/);
    expect(httpUrlProblem(`https://e.com/${'a'.repeat(2100)}`)).toMatch(/1 to 2083/);
    expect(httpUrlProblem('not a url')).toMatch(/not a valid absolute URL/);
    expect(httpUrlProblem('ftp://e.com/a')).toMatch(/got ftp/);
    expect(httpUrlProblem('https://user:pw@e.com/a')).toMatch(/credentials/);
  });

  it('is the render schema\'s rule', () => {
    expect(validateRenderRequest({ elements: [{ type: 'image', source_url: 'http://my_host/a.png' }] }).ok).toBe(true);
    const bad = validateRenderRequest({ elements: [{ type: 'image', source_url: 'https://user:pw@e.com/a.png' }] });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors[0]).toMatchObject({ type: 'url_parsing', pointer: '/elements/0/source_url', msg: expect.stringMatching(/credentials/) });
  });
});
