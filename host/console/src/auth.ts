// Who the console acts as. Keys live in sessionStorage only: they last as long as the tab and
// never reach disk through localStorage or a cookie.

import { isAuthError, swf, setCredentials } from './api/client';
import type { Credentials } from './sigv4';

const KEY = 'weft.credentials';

export const DEFAULT_REGION = 'us-east-1';

export function storedCredentials(): Credentials | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (!raw) return null;
    const c = JSON.parse(raw) as Partial<Credentials>;
    if (typeof c.accessKeyId === 'string' && typeof c.secretAccessKey === 'string') {
      return { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey, region: c.region || DEFAULT_REGION };
    }
  } catch {
    // Unreadable: treat as signed out.
  }
  return null;
}

/** Keeps `creds` for this tab and signs every request with them. */
export function keepCredentials(creds: Credentials): void {
  sessionStorage.setItem(KEY, JSON.stringify(creds));
  setCredentials(creds);
}

export function forgetCredentials(): void {
  sessionStorage.removeItem(KEY);
  setCredentials(null);
}

/** The cheapest call every caller may make; it tells whether `creds` (or none) are accepted. */
export async function tryCredentials(creds: Credentials | null): Promise<void> {
  await swf('ListDomains', { registrationStatus: 'REGISTERED', maximumPageSize: 1 }, creds);
}

/**
 * Whether the server answers unsigned requests (open mode). Refused for authentication: no.
 * Any other failure (the server down, say) is thrown for the caller to show.
 */
export async function serverIsOpen(): Promise<boolean> {
  try {
    await tryCredentials(null);
    return true;
  } catch (e) {
    if (isAuthError(e)) return false;
    throw e;
  }
}

const REGION_KEY = 'weft.open-region';

/** The region an open server is browsed in (us-east-1 unless chosen). */
export function openRegion(): string {
  return sessionStorage.getItem(REGION_KEY) || DEFAULT_REGION;
}

/**
 * Browses an open server in `region`. An open server takes the region from a request's
 * credential scope and checks no signature, so requests are signed with a stand-in key in that
 * region; in the default region they go unsigned.
 */
export function browseOpenRegion(region: string): void {
  sessionStorage.setItem(REGION_KEY, region);
  setCredentials(region === DEFAULT_REGION ? null : { accessKeyId: 'open-mode', secretAccessKey: 'open-mode', region });
}
