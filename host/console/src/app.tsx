// The shell: who is signed in, the header, and which page the hash names.

import { useEffect, useState } from 'preact/hooks';
import { setCredentials } from './api/client';
import { forgetCredentials, keepCredentials, openRegion, serverIsOpen, storedCredentials, browseOpenRegion } from './auth';
import { ErrorBox, Loading } from './components/async';
import { DomainPage } from './pages/domain';
import { DomainsPage } from './pages/domains';
import { ExecutionPage } from './pages/execution';
import { ModulesPage } from './pages/modules';
import { SearchPage } from './pages/search';
import { SignInPage } from './pages/signin';
import { timeZone } from './format';
import { links, useRoute } from './router';
import type { Credentials } from './sigv4';

type Session =
  | { kind: 'probing' }
  | { kind: 'unreachable'; error: unknown }
  | { kind: 'signin'; serverOpen: boolean }
  | { kind: 'open'; region: string }
  | { kind: 'signed-in'; creds: Credentials };

export function App() {
  const [session, setSession] = useState<Session>(() => {
    const creds = storedCredentials();
    setCredentials(creds);
    return creds ? { kind: 'signed-in', creds } : { kind: 'probing' };
  });

  useEffect(() => {
    if (session.kind !== 'probing') return;
    serverIsOpen().then(
      (open) => {
        if (open) browseOpenRegion(openRegion());
        setSession(open ? { kind: 'open', region: openRegion() } : { kind: 'signin', serverOpen: false });
      },
      (error: unknown) => setSession({ kind: 'unreachable', error }),
    );
  }, [session.kind]);

  const signOut = () => {
    forgetCredentials();
    setSession({ kind: 'probing' });
  };

  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <Header
        session={session}
        onSignOut={signOut}
        onSignIn={() => setSession({ kind: 'signin', serverOpen: true })}
        onRegion={(region) => {
          browseOpenRegion(region);
          setSession({ kind: 'open', region });
        }}
      />
      <main id="main" tabIndex={-1}>
        {session.kind === 'probing' && <Loading what="the server's mode" />}
        {session.kind === 'unreachable' && (
          <ErrorBox error={session.error}>
            {' '}
            <button type="button" onClick={() => setSession({ kind: 'probing' })}>
              Try again
            </button>
          </ErrorBox>
        )}
        {session.kind === 'signin' && (
          <SignInPage
            serverOpen={session.serverOpen}
            onSignedIn={(creds) => {
              keepCredentials(creds);
              setSession({ kind: 'signed-in', creds });
            }}
            onContinueOpen={() => {
              browseOpenRegion(openRegion());
              setSession({ kind: 'open', region: openRegion() });
            }}
          />
        )}
        {(session.kind === 'open' || session.kind === 'signed-in') && (
          // Another region is another set of domains: the page is read again.
          <Pages key={session.kind === 'open' ? session.region : session.creds.region} />
        )}
      </main>
    </>
  );
}

/** Regions offered in open mode; any other can be typed. */
const REGIONS = ['us-east-1', 'us-east-2', 'us-west-1', 'us-west-2', 'eu-west-1', 'eu-central-1', 'ap-southeast-1', 'ap-northeast-1'];

function Header({
  session,
  onSignOut,
  onSignIn,
  onRegion,
}: {
  session: Session;
  onSignOut: () => void;
  onSignIn: () => void;
  onRegion: (region: string) => void;
}) {
  const { path } = useRoute();
  const section = path[0] ?? 'domains';
  const inside = session.kind === 'open' || session.kind === 'signed-in';
  return (
    <header class="top">
      <a class="brand" href={links.domains()}>
        Weft <span>console</span>
      </a>
      {inside && (
        <nav aria-label="Main">
          <a href={links.domains()} aria-current={section === 'domains' ? 'page' : undefined}>
            Domains
          </a>
          <a href={links.modules()} aria-current={section === 'modules' ? 'page' : undefined}>
            Modules
          </a>
        </nav>
      )}
      <span class="muted zone" data-testid="time-zone" title="Times are shown in this time zone, as YYYY-MM-DD HH:MM:SS">
        {timeZone()}
      </span>
      <div class="who" data-testid="who">
        {session.kind === 'open' && (
          <>
            <span class="badge" title="The server authenticates nothing">
              open mode
            </span>
            <label class="region">
              <span class="muted">Region</span>
              <input
                list="regions"
                size={14}
                spellcheck={false}
                data-testid="open-region"
                value={session.region}
                onChange={(e) => {
                  const region = e.currentTarget.value.trim();
                  if (/^[a-z]{2}(-[a-z]+)+-\d+$/.test(region)) onRegion(region);
                  else e.currentTarget.value = session.region;
                }}
              />
              <datalist id="regions">
                {REGIONS.map((r) => (
                  <option key={r} value={r} />
                ))}
              </datalist>
            </label>
            <button type="button" class="link" onClick={onSignIn}>
              Sign in with a key
            </button>
          </>
        )}
        {session.kind === 'signed-in' && (
          <>
            <span title={`Requests are signed with ${session.creds.accessKeyId} for ${session.creds.region}`}>
              <span class="muted">Key </span>
              <code data-testid="signed-in-key">{session.creds.accessKeyId}</code>
              <span class="muted"> · {session.creds.region}</span>
            </span>
            <button type="button" onClick={onSignOut} data-testid="sign-out">
              Sign out
            </button>
          </>
        )}
      </div>
    </header>
  );
}

function Pages() {
  const { path } = useRoute();
  // A new page starts at the top.
  const key = path.join('/');
  useEffect(() => window.scrollTo(0, 0), [key]);
  const [first, domain, tab, workflowId, runId] = path;
  if (first === undefined || (first === 'domains' && domain === undefined)) return <DomainsPage />;
  if (first === 'modules' && domain === undefined) return <ModulesPage />;
  if (first === 'search' && domain === undefined) return <SearchPage />;
  if (first === 'domains' && domain !== undefined) {
    if (tab === 'executions' && workflowId !== undefined && runId !== undefined) {
      return <ExecutionPage domain={domain} workflowId={workflowId} runId={runId} />;
    }
    if (workflowId === undefined) return <DomainPage domain={domain} tab={tab ?? 'executions'} />;
  }
  return (
    <section>
      <h1>Not found</h1>
      <p>
        Nothing lives at this address. <a href={links.domains()}>See the domains</a>.
      </p>
    </section>
  );
}
