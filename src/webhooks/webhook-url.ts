import { isIP } from 'node:net';
import { AddressPolicy } from '../infra/http/address-policy';
import { FetchError, parseFetchUrl } from '../infra/http/guarded-fetcher';

export interface UrlProblem {
  /** Pydantic-style error type (docs/decisions/0003-errors.md). */
  type: 'url_parsing' | 'url_scheme' | 'value_error';
  msg: string;
}

/**
 * Why a webhook URL cannot be used, or null. The guarded fetcher checks every resolved address on
 * each attempt anyway (a name can change what it points at); this refuses, when it is registered,
 * what is wrong on its face: not an absolute http(s) URL, plain http where https is required, an
 * address literal (or `localhost`) outside the public internet.
 */
export function webhookUrlProblem(raw: string, options: { allowHttp: boolean; addressPolicy: AddressPolicy }): UrlProblem | null {
  let url: URL;
  try {
    url = parseFetchUrl(raw);
  } catch (error) {
    return { type: 'url_parsing', msg: (error as FetchError).message };
  }
  if (url.protocol === 'http:' && !options.allowHttp) {
    return { type: 'url_scheme', msg: 'Webhook URLs must use https' };
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  // RFC 6761: every *.localhost name is loopback.
  const address = isIP(host) ? host : host === 'localhost' || host.endsWith('.localhost') ? '127.0.0.1' : null;
  const range = address ? options.addressPolicy.forbiddenRange(address) : null;
  if (range) {
    return { type: 'value_error', msg: `${url.hostname} is a ${range.kind} address (${range.range}); webhooks are only sent to public addresses` };
  }
  return null;
}
