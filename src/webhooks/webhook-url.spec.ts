import { AddressPolicy } from '../infra/http/address-policy';
import { webhookUrlProblem } from './webhook-url';

describe('webhook URL rules', () => {
  const strict = { allowHttp: false, addressPolicy: new AddressPolicy() };
  const local = { allowHttp: true, addressPolicy: new AddressPolicy({ allowPrivateNetwork: true }) };

  it('accepts public https URLs', () => {
    expect(webhookUrlProblem('https://hooks.example.com/video?x=1', strict)).toBeNull();
    expect(webhookUrlProblem('https://93.184.215.14/hook', strict)).toBeNull();
  });

  it('requires https unless plain http is allowed', () => {
    expect(webhookUrlProblem('http://hooks.example.com/', strict)).toMatchObject({ type: 'url_scheme' });
    expect(webhookUrlProblem('http://hooks.example.com/', local)).toBeNull();
  });

  it('refuses what is not an absolute http(s) URL, or is too long', () => {
    for (const raw of ['hooks.example.com', 'ftp://example.com/x', 'https://user:pw@example.com/', `https://example.com/${'a'.repeat(2100)}`]) {
      expect(webhookUrlProblem(raw, strict)).toMatchObject({ type: 'url_parsing' });
    }
  });

  it('refuses loopback, private and metadata addresses unless the private network is allowed (never link-local)', () => {
    const refused = ['https://127.0.0.1/', 'https://localhost:8443/', 'https://api.localhost/', 'https://10.1.2.3/', 'https://[::1]/', 'https://169.254.169.254/'];
    for (const raw of refused) {
      expect(webhookUrlProblem(raw, strict)).toMatchObject({ type: 'value_error' });
    }
    expect(webhookUrlProblem('http://127.0.0.1:9000/hook', local)).toBeNull();
    expect(webhookUrlProblem('https://169.254.169.254/', local)).toMatchObject({ type: 'value_error' });
  });
});
