// AWS's published SigV4 test suite cases (aws-sig-v4-test-suite), plus the path rule Weft checks.
import { describe, expect, it } from 'vitest';
import { sign, uriEncode, type Credentials } from './sigv4';

const creds: Credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  region: 'us-east-1',
};
const date = new Date(Date.UTC(2015, 7, 30, 12, 36, 0));

function signature(method: string, path: string, query = '', extra: Record<string, string> = {}) {
  const signed = sign(
    {
      method,
      path,
      query,
      headers: { Host: 'example.amazonaws.com', ...extra },
      body: '',
      date,
      service: 'service',
      signPayloadHash: false,
    },
    creds,
  );
  return /Signature=([0-9a-f]+)$/.exec(signed.headers.authorization!)![1];
}

describe('sigv4', () => {
  it('signs get-vanilla', () => {
    expect(signature('GET', '/')).toBe(
      '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    );
  });

  it('signs post-vanilla', () => {
    expect(signature('POST', '/')).toBe(
      '5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b',
    );
  });

  it('signs get-vanilla-query-order-key-case', () => {
    expect(signature('GET', '/', 'Param2=value2&Param1=value1')).toBe(
      'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500',
    );
  });

  it('signs get-header-value-trim', () => {
    expect(signature('GET', '/', '', { 'My-Header1': ' value1', 'My-Header2': ' "a   b   c"' })).toBe(
      'acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736',
    );
  });

  it('builds the documented canonical request', () => {
    const signed = sign(
      { method: 'GET', path: '/', headers: { host: 'example.amazonaws.com' }, body: '', date, service: 'service', signPayloadHash: false },
      creds,
    );
    expect(signed.canonicalRequest).toBe(
      'GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n' +
        'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });

  it('encodes an already encoded path once more, as Weft checks it', () => {
    const signed = sign(
      { method: 'GET', path: '/v1/domains/a%20b/bindings', headers: { host: 'h' }, body: '', date, service: 'swf' },
      creds,
    );
    expect(signed.canonicalRequest.split('\n')[1]).toBe('/v1/domains/a%2520b/bindings');
    expect(signed.headers['x-amz-content-sha256']).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(uriEncode("a:b~c!'()*é")).toBe('a%3Ab~c%21%27%28%29%2A%C3%A9');
  });
});
