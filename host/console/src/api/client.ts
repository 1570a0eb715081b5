// The two faces of Weft the console talks to, on its own origin: SWF's AWS JSON 1.0 protocol
// (`POST /`) and Weft's `/v1` JSON API. Both are signed with the signed-in key, if any.

import { sign, uriEncode, type Credentials } from '../sigv4';

/** A fault the server answered, or a failure to reach it. */
export class ApiError extends Error {
  constructor(
    /** The fault's code: `__type` after its `#`, e.g. `UnknownResourceFault`. */
    readonly code: string,
    message: string,
    /** The HTTP status; 0 when the server could not be reached. */
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const AUTH_FAULTS = new Set([
  'MissingAuthenticationTokenException',
  'UnrecognizedClientException',
  'IncompleteSignatureException',
  'InvalidSignatureException',
  'AccessDeniedException',
]);

/** Whether `e` says the request was refused for who sent it (or for not saying). */
export function isAuthError(e: unknown): boolean {
  return e instanceof ApiError && AUTH_FAULTS.has(e.code);
}

let credentials: Credentials | null = null;

/** Who signs requests from now on; `null` sends them unsigned (the server's open mode). */
export function setCredentials(creds: Credentials | null): void {
  credentials = creds;
}

async function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string,
  creds: Credentials | null,
  query = '',
): Promise<unknown> {
  const all = { ...headers };
  if (creds) {
    const signed = sign(
      { method, path, query, headers: { ...all, host: location.host }, body, date: new Date(), service: 'swf' },
      creds,
    );
    Object.assign(all, signed.headers);
  }
  let response: Response;
  try {
    response = await fetch(query ? `${path}?${query}` : path, {
      method,
      headers: all,
      body: method === 'GET' || method === 'DELETE' ? undefined : body,
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch (e) {
    throw new ApiError('NetworkError', `The server could not be reached: ${String(e)}`, 0);
  }
  const text = await response.text();
  let json: unknown = undefined;
  try {
    json = text === '' ? {} : JSON.parse(text);
  } catch {
    // Not JSON: a proxy's error page, say. Reported below by its status.
  }
  if (!response.ok) {
    const fault = (json ?? {}) as { __type?: string; message?: string; Message?: string };
    const type = fault.__type ?? response.headers.get('x-amzn-errortype') ?? `HTTP${response.status}`;
    const code = type.slice(type.lastIndexOf('#') + 1).split(':')[0]!;
    const message = fault.message ?? fault.Message ?? (text.slice(0, 300) || response.statusText);
    throw new ApiError(code, message, response.status);
  }
  if (json === undefined) {
    throw new ApiError('BadResponse', `The server answered something other than JSON: ${text.slice(0, 200)}`, response.status);
  }
  return json;
}

/**
 * Calls SWF operation `op` with `input`. `creds` overrides the signed-in key (used to try a key
 * before keeping it); `null` sends the request unsigned.
 */
export function swf<T>(op: string, input: object, creds: Credentials | null = credentials): Promise<T> {
  return send(
    'POST',
    '/',
    {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': `SimpleWorkflowService.${op}`,
    },
    JSON.stringify(input),
    creds,
  ) as Promise<T>;
}

/** GETs the `/v1` resource named by `segments`, each percent-encoded as SigV4 encodes it. */
export function v1Get<T>(...segments: string[]): Promise<T> {
  return send('GET', v1Path(segments), {}, '', credentials) as Promise<T>;
}

/** GETs the `/v1` resource named by `segments` with the query `params` (absent ones left out). */
export function v1Query<T>(segments: string[], params: Record<string, string | number | boolean | undefined>): Promise<T> {
  // Percent-encoded as SigV4 encodes it (not `+` for spaces), so the signature covers what is sent.
  const query = Object.entries(params)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${uriEncode(k)}=${uriEncode(String(v))}`)
    .join('&');
  return send('GET', v1Path(segments), {}, '', credentials, query) as Promise<T>;
}

/** POSTs (or PUTs) `body` as JSON to the `/v1` resource named by `segments`. */
export function v1Send<T>(method: 'POST' | 'PUT', segments: string[], body: object): Promise<T> {
  return send(method, v1Path(segments), { 'content-type': 'application/json' }, JSON.stringify(body), credentials) as Promise<T>;
}

/** DELETEs the `/v1` resource named by `segments`. */
export function v1Delete<T>(...segments: string[]): Promise<T> {
  return send('DELETE', v1Path(segments), {}, '', credentials) as Promise<T>;
}

const v1Path = (segments: string[]) => '/v1/' + segments.map((s) => uriEncode(s)).join('/');

/** Every page of a paginated SWF listing, concatenated. */
export async function swfAll<T, K extends string>(
  op: string,
  input: object,
  key: K,
  pageSize = 1000,
): Promise<T[]> {
  const out: T[] = [];
  let nextPageToken: string | undefined;
  do {
    const page = await swf<{ nextPageToken?: string } & Record<K, T[]>>(op, {
      ...input,
      maximumPageSize: pageSize,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    out.push(...(page[key] ?? []));
    nextPageToken = page.nextPageToken;
  } while (nextPageToken);
  return out;
}
