// What a run's bound guests logged lately (on the node serving the console), oldest first.

import type { RunLogLine } from '../api/weft-types';
import { formatTime } from '../format';

export function GuestLog({ lines }: { lines: RunLogLine[] }) {
  if (lines.length === 0) return <p class="empty">No guest has logged anything for this run lately.</p>;
  return (
    <div class="scroll">
      <table data-testid="guest-log">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Level</th>
            <th scope="col">Guest</th>
            <th scope="col">Task</th>
            <th scope="col">Message</th>
          </tr>
        </thead>
        <tbody>
          {lines.map((l, i) => (
            <tr key={i} data-level={l.level}>
              <td class="nowrap">{formatTime(l.at, true)}</td>
              <td class={`level ${l.level}`}>{l.level}</td>
              <td class="nowrap">
                {l.kind} <code>{l.binding}</code>
              </td>
              <td class="nowrap">{l.task}</td>
              <td>
                <pre class="log-line">{l.message}</pre>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
