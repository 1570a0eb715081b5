// Every Wasm module the caller has uploaded.

import { v1Get } from '../api/client';
import type { ModuleRecord } from '../api/weft-types';
import { Show, useAsync } from '../components/async';
import { formatBytes, formatTime } from '../format';

export function ModulesPage() {
  const modules = useAsync(() => v1Get<{ modules: ModuleRecord[] }>('modules'), []);
  return (
    <section>
      <div class="title-row">
        <h1>Modules</h1>
      </div>
      <p class="muted">
        WebAssembly components uploaded with <code>weft module upload</code> or <code>POST /v1/modules</code>, named by the SHA-256 of
        their bytes.
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
                    <th scope="col">Digest (SHA-256)</th>
                    <th scope="col">World</th>
                    <th scope="col" class="num">
                      Size
                    </th>
                    <th scope="col">Uploaded</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((m) => (
                    <tr key={m.digest} data-digest={m.digest}>
                      <td>
                        <code class="digest">{m.digest}</code>
                      </td>
                      <td>{m.world}</td>
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
