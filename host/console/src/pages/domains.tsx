// The domains the caller sees, registered or deprecated, with their retention periods.

import { swf, swfAll } from '../api/client';
import type { DomainDetail, DomainInfo, RegistrationStatus } from '../api/swf-types';
import { Show, useAsync } from '../components/async';
import { Segmented } from '../components/segmented';
import { days } from '../format';
import { href, links, navigate, rowClick, useRoute } from '../router';
import { SearchBox } from './search';

interface Row {
  info: DomainInfo;
  retention?: string;
}

export function DomainsPage() {
  const { query } = useRoute();
  const status: RegistrationStatus = query.get('status') === 'deprecated' ? 'DEPRECATED' : 'REGISTERED';
  const state = useAsync(async (): Promise<Row[]> => {
    const infos = await swfAll<DomainInfo, 'domainInfos'>('ListDomains', { registrationStatus: status }, 'domainInfos');
    // ListDomains leaves out the retention period; DescribeDomain has it. A domain that cannot
    // be described (deleted meanwhile) still shows, without it.
    return Promise.all(
      infos.map((info) =>
        swf<DomainDetail>('DescribeDomain', { name: info.name }).then(
          (d) => ({ info, retention: d.configuration.workflowExecutionRetentionPeriodInDays }),
          () => ({ info }),
        ),
      ),
    );
  }, [status]);

  return (
    <section>
      <div class="title-row">
        <h1>Domains</h1>
        <Segmented
          label="Registration status"
          value={status}
          options={[
            ['REGISTERED', 'Registered'],
            ['DEPRECATED', 'Deprecated'],
          ]}
          onChange={(s) => navigate(href(['domains'], { status: s === 'DEPRECATED' ? 'deprecated' : undefined }))}
          testid="domain-status"
        />
        <SearchBox />
      </div>
      <Show state={state} what="domains">
        {(rows) =>
          rows.length === 0 ? (
            <p class="empty">No {status.toLowerCase()} domains.</p>
          ) : (
            <div class="scroll">
              <table data-testid="domains-table">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Status</th>
                    <th scope="col">Description</th>
                    <th scope="col">Retention</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map(({ info, retention }) => (
                    <tr key={info.name} data-domain={info.name} class="clickable" onClick={(e) => rowClick(e, links.domain(info.name))}>
                      <td>
                        <a href={links.domain(info.name)}>{info.name}</a>
                      </td>
                      <td>
                        <span class={`status ${info.status.toLowerCase()}`}>{info.status}</span>
                      </td>
                      <td>{info.description ?? ''}</td>
                      <td>{retention === undefined ? '' : days(retention)}</td>
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
