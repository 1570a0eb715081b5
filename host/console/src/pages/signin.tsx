// The sign-in form: an access key pair and a region, tried with one call before it is kept.

import { useState } from 'preact/hooks';
import { DEFAULT_REGION, tryCredentials } from '../auth';
import { ErrorBox } from '../components/async';
import type { Credentials } from '../sigv4';

export function SignInPage({
  serverOpen,
  onSignedIn,
  onContinueOpen,
}: {
  serverOpen: boolean;
  onSignedIn: (creds: Credentials) => void;
  onContinueOpen: () => void;
}) {
  const [accessKeyId, setKey] = useState('');
  const [secretAccessKey, setSecret] = useState('');
  const [region, setRegion] = useState(DEFAULT_REGION);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  const submit = async (e: Event) => {
    e.preventDefault();
    const creds = { accessKeyId: accessKeyId.trim(), secretAccessKey, region: region.trim() || DEFAULT_REGION };
    setBusy(true);
    setError(undefined);
    try {
      await tryCredentials(creds);
      onSignedIn(creds);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <section class="signin">
      <h1>Sign in</h1>
      <p class="muted">
        {serverOpen
          ? 'This server is in open mode: a key is needed only to act in another region.'
          : 'This server answers only requests signed with a tenant’s access key (AWS Signature Version 4). The key is kept in this browser tab only.'}
      </p>
      <form onSubmit={submit} class="stack" data-testid="signin-form">
        <label>
          Access key ID
          <input
            name="accessKeyId"
            data-testid="signin-key"
            autoComplete="username"
            required
            spellcheck={false}
            value={accessKeyId}
            onInput={(e) => setKey(e.currentTarget.value)}
          />
        </label>
        <label>
          Secret access key
          <input
            name="secretAccessKey"
            type="password"
            data-testid="signin-secret"
            autoComplete="current-password"
            required
            value={secretAccessKey}
            onInput={(e) => setSecret(e.currentTarget.value)}
          />
        </label>
        <label>
          Region
          <input
            name="region"
            data-testid="signin-region"
            spellcheck={false}
            value={region}
            onInput={(e) => setRegion(e.currentTarget.value)}
          />
        </label>
        {error !== undefined && <ErrorBox error={error} />}
        <div class="row">
          <button type="submit" class="primary" disabled={busy} data-testid="signin-submit">
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
          {serverOpen && (
            <button type="button" onClick={onContinueOpen}>
              Continue without a key
            </button>
          )}
        </div>
      </form>
    </section>
  );
}
