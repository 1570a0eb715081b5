// AWS Signature Version 4, as Weft checks it (host/src/tenancy/sigv4.rs). Hashing is done with
// @noble/hashes rather than WebCrypto because WebCrypto's `subtle` exists only in secure
// contexts, and the console is often opened over plain http on a LAN address.

import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

export interface SignInput {
  method: string;
  /** The path as it will be sent, already percent-encoded. */
  path: string;
  /** The query as it will be sent, without `?`. */
  query?: string;
  /** Header names (any case) and values; every one of them is signed. `host` must be among them. */
  headers: Record<string, string>;
  body: string;
  /** When the request is signed. */
  date: Date;
  service: string;
  /**
   * Whether to send and sign `x-amz-content-sha256` (default yes). Weft checks a signature that
   * covers it before reading the body; AWS's published test vectors leave it out.
   */
  signPayloadHash?: boolean;
}

export interface Signed {
  /** Headers to add to the request: `x-amz-date`, `x-amz-content-sha256` (unless left out), `authorization`. */
  headers: Record<string, string>;
  /** Exposed for tests and debugging. */
  canonicalRequest: string;
  stringToSign: string;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';

export const sha256Hex = (data: string): string => bytesToHex(sha256(utf8ToBytes(data)));

/** `20150830T123600Z` */
export function amzDate(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/**
 * SigV4's URI encoding: everything but letters, digits and `-._~` as %XX of its UTF-8 bytes
 * (encodeURIComponent leaves `!'()*` alone, which AWS encodes).
 */
export function uriEncode(s: string, keepSlash = false): string {
  let out = '';
  for (const byte of utf8ToBytes(s)) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(c) || (keepSlash && c === '/')) out += c;
    else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

function canonicalQuery(query: string): string {
  const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
  return query
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const i = p.indexOf('=');
      const [k, v] = i < 0 ? [p, ''] : [p.slice(0, i), p.slice(i + 1)];
      return [uriEncode(decode(k)), uriEncode(decode(v))] as const;
    })
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

/** Signs a request; `input.headers` must already hold everything to be sent except the results. */
export function sign(input: SignInput, creds: Credentials): Signed {
  const stamp = amzDate(input.date);
  const day = stamp.slice(0, 8);
  const payloadHash = sha256Hex(input.body);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers)) headers[name.toLowerCase()] = value;
  headers['x-amz-date'] = stamp;
  if (input.signPayloadHash !== false) headers['x-amz-content-sha256'] = payloadHash;
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    input.method,
    // Services other than S3 encode the (already encoded) path once more.
    uriEncode(input.path || '/', true),
    canonicalQuery(input.query ?? ''),
    names.map((n) => `${n}:${headers[n]!.trim().replace(/\s+/g, ' ')}\n`).join(''),
    signedHeaders,
    payloadHash,
  ].join('\n');
  const scope = `${day}/${creds.region}/${input.service}/aws4_request`;
  const stringToSign = [ALGORITHM, stamp, scope, sha256Hex(canonicalRequest)].join('\n');
  let key: Uint8Array = utf8ToBytes('AWS4' + creds.secretAccessKey);
  for (const part of [day, creds.region, input.service, 'aws4_request']) {
    key = hmac(sha256, key, utf8ToBytes(part));
  }
  const signature = bytesToHex(hmac(sha256, key, utf8ToBytes(stringToSign)));
  const out: Record<string, string> = {
    'x-amz-date': stamp,
    authorization:
      `${ALGORITHM} Credential=${creds.accessKeyId}/${scope}, ` +
      `SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
  if (input.signPayloadHash !== false) out['x-amz-content-sha256'] = payloadHash;
  return {
    headers: out,
    canonicalRequest,
    stringToSign,
  };
}
