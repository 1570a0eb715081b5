// The Wasm modules bound to serve this domain's task lists and functions, what the modules are,
// and what their guests failed lately.

import { useState } from 'preact/hooks';
import { v1Get, v1Send } from '../api/client';
import type { Binding, GuestFailureRecord, ModuleRecord } from '../api/weft-types';
import { ErrorBox, Show, useAsync } from '../components/async';
import { ConfirmDialog } from '../components/dialog';
import { formatBytes, formatDuration, formatTime, short } from '../format';
import { links } from '../router';

interface BindingView {
  binding: Binding;
  module?: ModuleRecord;
  previous?: ModuleRecord;
  /** Every module of the account, to name a binding's versions. */
  modules: ModuleRecord[];
  failures: GuestFailureRecord[] | { error: unknown };
}

async function load(domain: string): Promise<BindingView[]> {
  const [{ bindings }, modules] = await Promise.all([
    v1Get<{ bindings: Binding[] }>('domains', domain, 'bindings'),
    // The module list only adds sizes and worlds: the bindings still show without it.
    v1Get<{ modules: ModuleRecord[] }>('modules').then(
      (m) => m.modules,
      () => [] as ModuleRecord[],
    ),
  ]);
  return Promise.all(
    bindings.map(async (binding) => ({
      binding,
      module: modules.find((m) => m.digest === binding.module),
      previous: modules.find((m) => m.digest === binding.previousModule),
      modules,
      failures: await v1Get<{ failures: GuestFailureRecord[] }>('domains', domain, 'bindings', binding.kind, binding.name, 'failures').then(
        (f) => f.failures,
        (error: unknown) => ({ error }),
      ),
    })),
  );
}

/** A module as people know it: its name and version label, else its digest's start. */
function moduleName(digest: string, m?: ModuleRecord): string {
  if (!m?.name) return short(digest, 12);
  return m.version ? `${m.name} ${m.version}` : m.name;
}

export function BindingsTab({ domain }: { domain: string }) {
  const views = useAsync(() => load(domain), [domain]);
  const [rollingBack, setRollingBack] = useState<BindingView | null>(null);
  return (
    <div>
      <h2 class="visually-hidden">Bindings and modules</h2>
      <div class="tools">
        <p class="muted">
          In-process WebAssembly workers of this domain. All uploaded modules are on the <a href={links.modules()}>Modules</a> page.
        </p>
        <button type="button" onClick={views.reload} disabled={views.loading}>
          Refresh
        </button>
      </div>
      <Show state={views} what="bindings">
        {(rows) =>
          rows.length === 0 ? (
            <p class="empty">Nothing in this domain is served by an in-process module.</p>
          ) : (
            <>
              <div class="scroll">
                <table data-testid="bindings-table">
                  <thead>
                    <tr>
                      <th scope="col">Kind</th>
                      <th scope="col">Name</th>
                      <th scope="col">Module</th>
                      <th scope="col">World</th>
                      <th scope="col" class="num">
                        Size
                      </th>
                      <th scope="col" class="num">
                        Concurrency
                      </th>
                      <th scope="col">Limits per call</th>
                      <th scope="col">HTTP hosts</th>
                      <th scope="col">Bound</th>
                      <th scope="col" class="num">
                        Failures
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((view) => {
                      const { binding: b, module: m, failures } = view;
                      return (
                        <tr key={`${b.kind}/${b.name}`} data-kind={b.kind} data-name={b.name} data-module={b.module}>
                          <td>{b.kind}</td>
                          <td>{b.name}</td>
                          <td>
                            <span title={b.module} data-testid="binding-module">
                              {moduleName(b.module, m)}
                            </span>
                            {b.ramp !== undefined && <div class="muted nowrap">ramping up: {b.ramp}% of new runs</div>}
                            {b.versions && b.versions.length > 0 && (
                              <ul class="versions" data-testid="binding-versions">
                                {b.versions.map((v) => (
                                  <li key={v.module} data-module={v.module} data-pinned={v.pinnedRuns ?? 0}>
                                    v{v.number} <span title={v.module}>{moduleName(v.module, view.modules.find((m) => m.digest === v.module))}</span>
                                    {' · '}
                                    {v.pinnedRuns ?? 0} open run{v.pinnedRuns === 1 ? '' : 's'}
                                    {v.module === b.module && ' · current'}
                                  </li>
                                ))}
                              </ul>
                            )}
                            {b.previousModule && (
                              <div class="muted nowrap">
                                before: <span title={b.previousModule}>{moduleName(b.previousModule, view.previous)}</span>{' '}
                                <button type="button" class="small" data-testid="binding-rollback" onClick={() => setRollingBack(view)}>
                                  Roll back
                                </button>
                              </div>
                            )}
                          </td>
                          <td>{m?.world ?? ''}</td>
                          <td class="num nowrap">{m ? formatBytes(m.size) : ''}</td>
                          <td class="num">{b.concurrency}</td>
                          <td>
                            {formatDuration(b.limits.cpuMs / 1000)} CPU · {formatBytes(b.limits.memoryBytes)} memory · {formatBytes(b.limits.outputBytes)} output
                          </td>
                          <td>{(b.httpHosts ?? []).join(', ') || '—'}</td>
                          <td class="nowrap">{formatTime(b.createdAt)}</td>
                          <td class="num">{Array.isArray(failures) ? failures.length : '?'}</td>
                        </tr>
                        );
                    })}
                  </tbody>
                </table>
              </div>
              {rollingBack && (
                <ConfirmDialog
                  title={`Roll back ${rollingBack.binding.kind} ${rollingBack.binding.name}`}
                  confirmLabel="Roll back"
                  onClose={() => setRollingBack(null)}
                  onConfirm={async () => {
                    const b = rollingBack.binding;
                    await v1Send('POST', ['domains', domain, 'bindings', b.kind, b.name, 'rollback'], {});
                    views.reload();
                  }}
                >
                  <p>
                    This binds <strong>{moduleName(rollingBack.binding.previousModule!, rollingBack.previous)}</strong> again in place of{' '}
                    <strong>{moduleName(rollingBack.binding.module, rollingBack.module)}</strong>, with the same settings, for new
                    runs; runs already pinned to a module keep it (an upgraded run moves back if it replays as recorded). Tasks
                    its guest failed on before pinning their run are retried at once; rolling back again restores the current module.
                  </p>
                </ConfirmDialog>
              )}
              <h3>Recent guest failures</h3>
              {rows.map((v) => (
                <Failures key={`${v.binding.kind}/${v.binding.name}`} domain={domain} view={v} />
              ))}
            </>
          )
        }
      </Show>
    </div>
  );
}

function Failures({ domain, view: { binding: b, failures } }: { domain: string; view: BindingView }) {
  const title = `${b.kind} ${b.name}`;
  if (!Array.isArray(failures)) {
    return (
      <div class="failures">
        <h4>{title}</h4>
        <ErrorBox error={failures.error} />
      </div>
    );
  }
  return (
    <details class="failures" open={failures.length > 0 && failures.length <= 5} data-testid="binding-failures" data-kind={b.kind} data-name={b.name}>
      <summary>
        {title}: {failures.length === 0 ? 'no failures' : `${failures.length} failure${failures.length === 1 ? '' : 's'}`}
      </summary>
      {failures.length > 0 && (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Execution</th>
                <th scope="col">Task</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {[...failures].reverse().map((f, i) => (
                <tr key={i}>
                  <td class="nowrap">{formatTime(f.at)}</td>
                  <td>
                    <a href={links.execution(domain, f.workflowId, f.runId)}>{f.workflowId}</a>
                  </td>
                  <td>{f.task}</td>
                  <td class="reason">{f.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </details>
  );
}
