// The shell: who is signed in, the header, and which page the hash names.

import { useEffect, useState } from 'preact/hooks';
import { setCredentials } from './api/client';
import { forgetCredentials, keepCredentials, serverIsOpen, storedCredentials } from './auth';
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
  | { kind: 'open' }
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
      (open) => setSession(open ? { kind: 'open' } : { kind: 'signin', serverOpen: false }),
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
      <Header session={session} onSignOut={signOut} onSignIn={() => setSession({ kind: 'signin', serverOpen: true })} />
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
            onContinueOpen={() => setSession({ kind: 'open' })}
          />
        )}
        {(session.kind === 'open' || session.kind === 'signed-in') && <Pages />}
      </main>
    </>
  );
}

function Header({ session, onSignOut, onSignIn }: { session: Session; onSignOut: () => void; onSignIn: () => void }) {
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
