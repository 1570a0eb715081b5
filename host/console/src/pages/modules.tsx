// Every Wasm module the caller has uploaded: its name and version label, and the bindings that
// run it.

import { v1Get } from '../api/client';
import type { ModuleRecord } from '../api/weft-types';
import { Show, useAsync } from '../components/async';
import { formatBytes, formatTime, short } from '../format';
import { links } from '../router';

export function ModulesPage() {
  const modules = useAsync(() => v1Get<{ modules: ModuleRecord[] }>('modules'), []);
  return (
    <section>
      <div class="title-row">
        <h1>Modules</h1>
      </div>
      <p class="muted">
        WebAssembly components uploaded with <code>weft module upload</code>, <code>weft deploy</code> or <code>POST /v1/modules</code>,
        identified by the SHA-256 of their bytes and named by their uploader.
      </p>
      <Show state={modules} what="modules">
        {({ modules: list }) =>
          list.length === 0 ? (
            <p class="empty">No modules uploaded.</p>
          ) : (
            <div class="scroll">
              <table data-testid="modules-table">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Version</th>
                    <th scope="col">Digest (SHA-256)</th>
                    <th scope="col">World</th>
                    <th scope="col">Used by</th>
                    <th scope="col" class="num">
                      Size
                    </th>
                    <th scope="col">Uploaded</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((m) => (
                    <tr key={m.digest} data-digest={m.digest}>
                      <td data-testid="module-name">{m.name ?? <span class="muted">unnamed</span>}</td>
                      <td>{m.version ?? ''}</td>
                      <td>
                        <code class="digest" title={m.digest}>
                          {short(m.digest, 16)}
                        </code>
                      </td>
                      <td>{m.world}</td>
                      <td data-testid="module-used-by">
                        {(m.usedBy ?? []).length === 0 ? (
                          <span class="muted">nothing</span>
                        ) : (
                          (m.usedBy ?? []).map((b) => (
                            <div key={`${b.domain}/${b.kind}/${b.name}`}>
                              <a href={links.domain(b.domain, 'bindings')}>{b.domain}</a> {b.kind} {b.name}
                            </div>
                          ))
                        )}
                      </td>
                      <td class="num nowrap">{formatBytes(m.size)}</td>
                      <td class="nowrap">{formatTime(m.uploadedAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Show>
    </section>
  );
}
