import { AddressPolicy } from './address-policy';
import { FetchError, GuardedFetcher, parseFetchUrl, Resolver } from './guarded-fetcher';

async function failure(promise: Promise<unknown>): Promise<FetchError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof FetchError) return error;
    throw error;
  }
  throw new Error('expected a FetchError');
}

describe('parseFetchUrl', () => {
  it('accepts http and https URLs up to 2083 characters', () => {
    expect(parseFetchUrl('https://example.com/a.mp4?x=1').href).toBe('https://example.com/a.mp4?x=1');
    const long = `http://example.com/${'a'.repeat(2083 - 'http://example.com/'.length)}`;
    expect(long).toHaveLength(2083);
    expect(parseFetchUrl(long).href).toBe(long);
  });

  it.each([
    ['an empty URL', '', /1 to 2083/],
    ['a 2084-character URL', `http://example.com/${'a'.repeat(2065)}`, /1 to 2083 characters \(got 2084\)/],
    ['text', 'not a url', /valid absolute URL/],
    ['a relative URL', '/relative/path.mp4', /valid absolute URL/],
    ['ftp', 'ftp://example.com/a.mp4', /only http and https/i],
    ['file', 'file:///etc/passwd', /only http and https/i],
    ['javascript', 'javascript:alert(1)', /only http and https/i],
    ['data', 'data:text/plain,hi', /only http and https/i],
    ['user and password', 'https://user:secret@example.com/a.mp4', /credentials/],
    ['a user name', 'https://user@example.com/a.mp4', /credentials/],
  ])('refuses %s as invalid_url', (_, url, message) => {
    let error: unknown;
    try {
      parseFetchUrl(url);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FetchError);
    expect((error as FetchError).reason).toBe('invalid_url');
    expect((error as FetchError).message).toMatch(message);
  });
});

describe('GuardedFetcher name resolution (no connection is made)', () => {
  const addresses: Record<string, { address: string; family: number }[]> = {
    'metadata.test': [{ address: '169.254.169.254', family: 4 }],
    'intranet.test': [{ address: '10.0.0.7', family: 4 }],
    'mixed.test': [
      { address: '93.184.216.34', family: 4 },
      { address: 'fd00::5', family: 6 },
    ],
    'empty.test': [],
  };
  const resolve: Resolver = async (hostname) => {
    const found = addresses[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found;
  };
  const fetcher = new GuardedFetcher({ resolve });

  it('refuses a host whose address is forbidden', async () => {
    const error = await failure(fetcher.request('http://metadata.test/computeMetadata/v1/'));
    expect(error.reason).toBe('forbidden_address');
    expect(error.message).toBe('metadata.test (169.254.169.254) is a link-local address (169.254.0.0/16); only public addresses are fetched');
    expect((await failure(fetcher.request('https://intranet.test/'))).reason).toBe('forbidden_address');
  });

  it('refuses a host when any one of its addresses is forbidden', async () => {
    const error = await failure(fetcher.request('http://mixed.test/'));
    expect(error.reason).toBe('forbidden_address');
    expect(error.message).toContain('fd00::5');
  });

  it('reports names that do not resolve as dns_failure', async () => {
    const missing = await failure(fetcher.request('http://nowhere.test/'));
    expect(missing.reason).toBe('dns_failure');
    expect(missing.message).toBe('Could not resolve nowhere.test (ENOTFOUND)');
    expect((await failure(fetcher.request('http://empty.test/'))).reason).toBe('dns_failure');
  });

  it('checks IP literals without resolving them', async () => {
    const literal = new GuardedFetcher({ resolve: () => Promise.reject(new Error('must not resolve')) });
    for (const url of ['http://10.0.0.1/', 'http://[::1]/', 'http://[::ffff:169.254.169.254]/', 'http://0x7f.1/', 'http://2130706433/']) {
      expect((await failure(literal.request(url))).reason).toBe('forbidden_address');
    }
  });

  it('refuses before connecting when the signal is already aborted', async () => {
    const allowAll = new GuardedFetcher({ addressPolicy: new AddressPolicy({ treatAsPublic: ['203.0.113.1'] }) });
    const controller = new AbortController();
    controller.abort();
    expect((await failure(allowAll.request('http://203.0.113.1/', { signal: controller.signal }))).reason).toBe('aborted');
  });
});
