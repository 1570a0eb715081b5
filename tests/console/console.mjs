// Drives Weft's web console in headless Chromium, as a person would. Its one argument is JSON:
//
//   {"url": "http://127.0.0.1:PORT", "chromium": "/usr/bin/chromium", "screenshots": "/abs/dir",
//    "readme": "/abs/dir" (optional: 1280x800 pictures of the main pages, of the first tenant),
//    "tenants": [{"key", "secret", "region"?, "domain", "hiddenDomain"?,
//                 "completed"?: {"workflowId", "runId", "events", "activities": [names], "logLines",
//                                "decider": {"module", "name"}},
//                 "versions"?: {"list", "module", "pinned"},
//                 "signal"?: {"workflowId", "runId", "name", "input"},
//                 "terminate"?: {"workflowId", "runId", "reason"},
//                 "reset"?: {"workflowId", "runId"},
//                 "failing"?: {"workflowId", "runId", "input", "reason"},
//                 "imported"?: {"workflowId", "runId"},
//                 "search"?: {"workflowId", "found": bool},
//                 "rollback"?: {"list", "to": digest, "name"},
//                 "batch"?: {"tag", "count", "reason"}}, ...]}
//
// For each tenant: sign in, see its domain and not the hidden one, open the domain; see a
// decision binding's versions with the open runs pinned to each; find the completed run among
// the closed ones and check its timeline, history, guest log and the decider it was pinned to; signal a run and see
// the signal in its history; find an imported run by its badge; terminate a run and see it closed; reset it to its first decision task
// and land on the new, open run; find a run whose decider keeps
// failing by its badge in the list, open it and read why on its failure card; roll its
// decision list's binding back to the module it ran before; find a workflow
// id with the search box from the domains page (or find nothing of another tenant's);
// terminate every open run with a tag at once, told how many first; start a run through the API
// (of a workflow type registered here, on a task list nobody polls), pause it from its page with
// a reason and see the reason there, resume it and see the pause gone; in the domain's Task lists
// tab, pause that run's decision list with a reason, see the reason in its row, resume it and see
// it unpaused; through its Limit… dialog limit it to 5 tasks a second, cap it at 3 tasks started
// (the rate kept), remove the rate (the cap kept), key it by the tag prefix tenant= with acme
// weighing 3 and see the tasks waiting under each key (a run tagged tenant=acme started for it),
// remove the cap and the keys, seeing each in its row and the API; make a schedule through the
// `/v1` API (of a workflow type registered here, signed as the tenant) and, in the domain's
// Schedules tab, see it, pause it with a note, unpause it, trigger it and see the run it started, delete it and see none left; start two runs with a tag
// of the script's own and make a batch job through the `/v1` API that signals them at a run a
// second, see it in the domain's Batch jobs tab (and no other tenant's job) until it is done with
// its progress bar full, open its details, see the signal in both runs' histories, and terminate
// the runs; start two more runs with a tag of its own, the first's first decision task started
// by a poll of the script's, and from the executions list filtered by that tag make a batch job
// that resets them to their first decision task, follow its link to the Batch jobs tab and see it
// done (action reset, the first run reset, the second failed for want of a started decision task,
// with why), the old run terminated with the job's reason and a new one open; sign out. Then, at a phone's
// width, the executions list must not be wider than the screen. Prints `ok` and exits 0 when
// every check holds; otherwise saves a full-page screenshot named for the step that failed
// (`<screenshots>/<step>.png`), prints the error and exits 1.

import { createHash, createHmac } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const TIMEOUT_MS = 15_000;

const config = JSON.parse(process.argv[2] ?? '');
if (!config.url || (!config.open && (!Array.isArray(config.tenants) || config.tenants.length === 0))) {
  console.error('usage: node console.mjs \'{"url": ..., "chromium": ..., "screenshots": ..., "tenants": [...]}\'');
  process.exit(2);
}
const base = config.url.replace(/\/$/, '');
const shots = config.screenshots ?? '.';
mkdirSync(shots, { recursive: true });

const browser = await chromium.launch({ executablePath: config.chromium ?? '/usr/bin/chromium' });
/** The page the current step acts on, screenshotted if the step fails. */
let current = null;
/** Errors thrown inside the page: a console that throws has failed even if the checks pass. */
const pageErrors = [];

/** Runs `body` as the step `name`; on failure, screenshots the page and exits 1. */
async function step(name, body) {
  try {
    await body();
  } catch (error) {
    const file = join(shots, `${name.replace(/[^A-Za-z0-9_.-]+/g, '-')}.png`);
    try {
      if (current) await current.screenshot({ path: file, fullPage: true });
      console.error(`screenshot: ${file}`);
    } catch (e) {
      console.error(`no screenshot: ${e.message}`);
    }
    console.error(`step ${name} failed: ${error?.stack ?? error}`);
    if (pageErrors.length) console.error(`errors in the page:\n${pageErrors.join('\n')}`);
    await browser.close();
    process.exit(1);
  }
}

function check(condition, message) {
  if (!condition) throw new Error(message);
}

/** Waits until `fn()` returns true (it may throw meanwhile), or fails with `message`. */
async function until(fn, message, timeout = TIMEOUT_MS) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      if (await fn()) return;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`${message}${last ? ` (last error: ${last.message})` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function newPage(viewport = { width: 1280, height: 800 }) {
  // A context per use: sessionStorage (where the keys live) starts empty.
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(TIMEOUT_MS);
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  current = page;
  return page;
}

const css = (s) => JSON.stringify(String(s));
const executionRows = (page) => page.locator('[data-testid="executions-table"] tbody tr[data-workflow-id]');

async function signIn(page, tenant) {
  await page.goto(`${base}/console/`);
  await page.getByTestId('signin-key').fill(tenant.key);
  await page.getByTestId('signin-secret').fill(tenant.secret);
  await page.getByTestId('signin-region').fill(tenant.region ?? 'us-east-1');
  await page.getByTestId('signin-submit').click();
  await page.getByTestId('signed-in-key').filter({ hasText: tenant.key }).waitFor();
}

async function openDomain(page, domain) {
  await page.goto(`${base}/console/#/domains`);
  await page.locator(`tr[data-domain=${css(domain)}] a`).click();
  await page.getByTestId('domain-name').filter({ hasText: domain }).waitFor();
}

/** Lists the domain's open or closed executions filtered by `workflowId` and opens `runId`'s row. */
async function openRun(page, domain, state, workflowId, runId) {
  await page.goto(`${base}/console/#/domains/${encodeURIComponent(domain)}/executions`);
  await page.getByTestId(`exec-state-${state}`).click();
  await page.getByTestId(`exec-state-${state}`).and(page.locator('[aria-pressed="true"]')).waitFor();
  await page.getByTestId('filter-by').selectOption('workflowId');
  await page.getByTestId('filter-workflow-id').fill(workflowId);
  await page.getByTestId('filter-apply').click();
  const row = page.locator(`[data-testid="executions-table"] tr[data-workflow-id=${css(workflowId)}][data-run-id=${css(runId)}]`);
  await row.waitFor();
  return row;
}

async function openExecution(page, row) {
  await row.locator('a').first().click();
  await page.getByTestId('execution-status').waitFor();
}

async function confirmDialog(page) {
  await page.getByTestId('dialog-confirm').click();
  await page.locator('dialog[open]').waitFor({ state: 'detached' });
}

/** SigV4's URI encoding, as the console's (`src/sigv4.ts`): all but letters, digits and `-._~` as %XX. */
function uriEncode(s, keepSlash = false) {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(c) || (keepSlash && c === '/')) out += c;
    else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

const sha256Hex = (s) => createHash('sha256').update(s, 'utf8').digest('hex');

/**
 * Sends `body` to `path` (already percent-encoded) as `tenant`, signed as the console signs
 * (SigV4, service `swf`, the payload's hash signed too), with node:http so that nothing but
 * these headers is sent (no `Origin`); answers the JSON. A fault throws, with its code as
 * `type` (`__type` after its `#`) and its HTTP `status`.
 */
async function call(tenant, method, path, headers, body) {
  const url = new URL(base + path);
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const day = stamp.slice(0, 8);
  const region = tenant.region ?? 'us-east-1';
  const payloadHash = sha256Hex(body);
  const signed = { ...headers, host: url.host, 'x-amz-date': stamp, 'x-amz-content-sha256': payloadHash };
  const names = Object.keys(signed).sort();
  const canonicalRequest = [
    method,
    uriEncode(path, true),
    '',
    names.map((n) => `${n}:${String(signed[n]).trim()}\n`).join(''),
    names.join(';'),
    payloadHash,
  ].join('\n');
  const scope = `${day}/${region}/swf/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', stamp, scope, sha256Hex(canonicalRequest)].join('\n');
  let key = Buffer.from(`AWS4${tenant.secret}`, 'utf8');
  for (const part of [day, region, 'swf', 'aws4_request']) key = createHmac('sha256', key).update(part, 'utf8').digest();
  const signature = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  const all = {
    ...signed,
    authorization: `AWS4-HMAC-SHA256 Credential=${tenant.key}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`,
    'content-length': String(Buffer.byteLength(body, 'utf8')),
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const { status, text } = await new Promise((resolve, reject) => {
    const req = send(url, { method, headers: all }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
  let json;
  try {
    json = text === '' ? {} : JSON.parse(text);
  } catch {
    throw new Error(`${method} ${path}: ${status}, not JSON: ${text.slice(0, 300)}`);
  }
  if (status >= 300) {
    const type = String(json.__type ?? `HTTP${status}`);
    const error = new Error(`${method} ${path}: ${status} ${type}: ${json.message ?? text}`);
    error.type = type.slice(type.lastIndexOf('#') + 1);
    error.status = status;
    throw error;
  }
  return json;
}

/** Calls SWF operation `op` as `tenant`. */
const swfCall = (tenant, op, input) =>
  call(
    tenant,
    'POST',
    '/',
    { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `SimpleWorkflowService.${op}` },
    JSON.stringify(input),
  );

/** Calls Weft's `/v1` resource named by `segments` as `tenant`, with `body` as JSON if given. */
const v1Call = (tenant, method, segments, body) =>
  call(
    tenant,
    method,
    '/v1/' + segments.map((s) => uriEncode(s)).join('/'),
    body === undefined ? {} : { 'content-type': 'application/json' },
    body === undefined ? '' : JSON.stringify(body),
  );

/**
 * Registers workflow type `name` version 1 in `tenant`'s domain (if it is not registered yet),
 * its runs' decision tasks going to `name-nobody`, a task list nobody polls: its runs wait there
 * for a decision task that never comes. Answers the type.
 */
async function registerIdleType(tenant, name) {
  const type = { name, version: '1' };
  try {
    await swfCall(tenant, 'RegisterWorkflowType', {
      domain: tenant.domain,
      ...type,
      defaultTaskList: { name: `${name}-nobody` },
      defaultExecutionStartToCloseTimeout: '3600',
      defaultTaskStartToCloseTimeout: '60',
      defaultChildPolicy: 'TERMINATE',
    });
  } catch (e) {
    if (e.type !== 'TypeAlreadyExistsFault') throw e;
  }
  return type;
}

// An open server ({"open": {"regions": [{"region", "domain"}, ...]}}): no sign-in; each region
// chosen in the header shows its own domains, and only those.
if (config.open) {
  const regions = config.open.regions;
  const page = await newPage();
  await step('open-region', async () => {
    await page.goto(`${base}/console/`);
    await page.getByTestId('open-region').waitFor();
    for (const { region, domain } of regions) {
      await page.getByTestId('open-region').fill(region);
      await page.getByTestId('open-region').press('Enter');
      await page.locator(`[data-testid="domains-table"] tr[data-domain=${css(domain)}]`).waitFor();
      const others = regions.filter((r) => r.domain !== domain);
      for (const other of others) {
        const shown = await page.locator(`tr[data-domain=${css(other.domain)}]`).count();
        check(shown === 0, `in ${region} the domains list shows ${other.domain}, of ${other.region}`);
      }
    }
    // The region chosen lasts for the tab.
    await page.reload();
    const last = regions[regions.length - 1];
    check((await page.getByTestId('open-region').inputValue()) === last.region, 'the region chosen was forgotten');
    await page.locator(`[data-testid="domains-table"] tr[data-domain=${css(last.domain)}]`).waitFor();
  });
  await step('open-page-errors', async () => check(pageErrors.length === 0, 'the page threw errors'));
  await browser.close();
  console.log('ok');
  process.exit(0);
}

for (const [i, tenant] of config.tenants.entries()) {
  const t = `tenant${i + 1}`;
  const page = await newPage();

  await step(`${t}-sign-in`, () => signIn(page, tenant));

  await step(`${t}-domains`, async () => {
    await page.locator(`[data-testid="domains-table"] tr[data-domain=${css(tenant.domain)}]`).waitFor();
    if (tenant.hiddenDomain) {
      const hidden = await page.locator(`tr[data-domain=${css(tenant.hiddenDomain)}]`).count();
      check(hidden === 0, `the domains list shows ${tenant.hiddenDomain}, another tenant's domain`);
    }
  });

  await step(`${t}-open-domain`, () => openDomain(page, tenant.domain));

  await step(`${t}-one-time-format`, async () => {
    // The filter's times are typed as the tables show them, in the zone the header names.
    const from = await page.getByTestId('filter-oldest').inputValue();
    check(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/.test(from), `the filter's start reads ${from}`);
    const zone = await page.getByTestId('time-zone').textContent();
    check(/^UTC[+-]\d{2}:\d{2}/.test(zone), `the header names the time zone as ${zone}`);
  });

  if (tenant.versions) {
    const v = tenant.versions;
    await step(`${t}-binding-versions`, async () => {
      await page.goto(`${base}/console/#/domains/${encodeURIComponent(tenant.domain)}/bindings`);
      const row = page.locator(`[data-testid="bindings-table"] tr[data-kind="decision"][data-name=${css(v.list)}]`);
      const version = row.locator(`[data-testid="binding-versions"] li[data-module=${css(v.module)}]`);
      await version.waitFor();
      const shown = await version.textContent();
      check(shown.includes(`${v.pinned} open runs`) && shown.includes('current'), `the binding's version reads ${shown}`);
    });
  }

  if (tenant.completed) {
    const c = tenant.completed;
    await step(`${t}-closed-list`, async () => {
      const row = await openRun(page, tenant.domain, 'closed', c.workflowId, c.runId);
      await until(async () => (await executionRows(page).count()) === 1, `the list filtered by ${c.workflowId} does not hold exactly one row`);
      await openExecution(page, row);
    });
    await step(`${t}-decider`, async () => {
      const decider = page.getByTestId('decider');
      await decider.waitFor();
      check((await decider.getAttribute('data-module')) === c.decider.module, 'the run page names another decider');
      check((await decider.textContent()).includes(c.decider.name), "the run page does not name the decider's module");
    });
    await step(`${t}-timeline`, async () => {
      const timeline = page.getByTestId('timeline');
      await timeline.waitFor();
      check((await timeline.locator('[data-kind="decision"]').count()) >= 1, 'the timeline has no decision task bar');
      for (const name of c.activities ?? []) {
        const bars = timeline.locator(`[data-kind="activity"][data-name=${css(name)}][data-outcome="completed"]`);
        check((await bars.count()) >= 1, `the timeline has no completed bar of activity ${name}`);
      }
      const cut = await timeline
        .locator('.tl-label')
        .evaluateAll((labels) => labels.filter((l) => l.scrollWidth > l.clientWidth).map((l) => l.textContent));
      check(cut.length === 0, `timeline labels are cut off: ${cut.join(', ')}`);
    });
    await step(`${t}-cards`, async () => {
      const close = await page.getByTestId('close-card').textContent();
      check(close.includes('Result'), `the completed run's card says ${close}`);
      check((await page.getByTestId('input-card').count()) === 1, 'the run has no input card');
    });
    await step(`${t}-history`, async () => {
      const rows = page.locator('[data-testid="history-table"] tbody tr[data-event-type]');
      await until(async () => (await rows.count()) === c.events, `the history does not show ${c.events} events`);
    });
    if (c.logLines) {
      await step(`${t}-guest-log`, async () => {
        const lines = page.locator('[data-testid="guest-log"] tbody tr[data-level="info"]');
        check((await lines.count()) === c.logLines, `the guest log shows ${await lines.count()} lines, not ${c.logLines}`);
        const first = await lines.first().textContent();
        check(first.includes(c.workflowId), `the first guest log line says ${first}`);
      });
    }
  }

  if (tenant.imported) {
    await step(`${t}-imported`, async () => {
      const i = tenant.imported;
      const row = await openRun(page, tenant.domain, 'closed', i.workflowId, i.runId);
      await row.getByTestId('imported-badge').waitFor();
    });
  }

  if (tenant.signal) {
    const s = tenant.signal;
    await step(`${t}-signal`, async () => {
      const row = await openRun(page, tenant.domain, 'open', s.workflowId, s.runId);
      await openExecution(page, row);
      await page.getByTestId('action-signal').click();
      await page.getByTestId('signal-name').fill(s.name);
      await page.getByTestId('signal-input').fill(s.input ?? '');
      await confirmDialog(page);
      await page.locator('[data-testid="history-table"] tr[data-event-type="WorkflowExecutionSignaled"]').first().waitFor();
    });
  }

  if (tenant.terminate) {
    const x = tenant.terminate;
    await step(`${t}-terminate`, async () => {
      const row = await openRun(page, tenant.domain, 'open', x.workflowId, x.runId);
      await openExecution(page, row);
      await page.getByTestId('action-terminate').click();
      await page.getByTestId('terminate-reason').fill(x.reason ?? '');
      await confirmDialog(page);
      await page.getByTestId('execution-status').filter({ hasText: 'TERMINATED' }).waitFor();
      check((await page.getByTestId('execution-status').textContent()).includes('CLOSED'), 'the run is not shown closed');
    });
  }

  if (tenant.reset) {
    const x = tenant.reset;
    await step(`${t}-reset`, async () => {
      const row = await openRun(page, tenant.domain, 'closed', x.workflowId, x.runId);
      await openExecution(page, row);
      await page.getByTestId('action-reset').click();
      await page.getByTestId('reset-point').selectOption('first');
      await confirmDialog(page);
      await page.waitForURL((url) => !url.hash.endsWith(`/${encodeURIComponent(x.runId)}`));
      await page.getByTestId('execution-status').filter({ hasText: 'OPEN' }).waitFor();
      check(page.url().includes(`/executions/${encodeURIComponent(x.workflowId)}/`), 'the reset did not open the new run');
    });
  }

  if (tenant.failing) {
    const f = tenant.failing;
    await step(`${t}-failing`, async () => {
      // The domain's list opens on every run, open and closed; the failing one wears a badge.
      await openDomain(page, tenant.domain);
      await page.getByTestId('exec-state-all').and(page.locator('[aria-pressed="true"]')).waitFor();
      const badged = executionRows(page).filter({ has: page.getByTestId('failing-badge') });
      await badged.first().waitFor();
      check((await badged.count()) === 1, `${await badged.count()} runs wear the failing badge`);
      check((await badged.getAttribute('data-run-id')) === f.runId, 'the failing badge is on another run');
      const title = await badged.getByTestId('failing-badge').getAttribute('title');
      check(title.includes(f.reason), `the badge says ${title}`);
      await openExecution(page, badged);
      await page.getByTestId('failure-reason').filter({ hasText: f.reason }).waitFor();
      const input = await page.getByTestId('input-card').textContent();
      check(input.includes(f.input), `the input card shows ${input}`);
      const logged = page.locator('[data-testid="failures-table"] tbody tr');
      check((await logged.count()) >= 1, 'the guest failures table is empty');
    });
  }

  if (tenant.rollback) {
    const r = tenant.rollback;
    await step(`${t}-rollback`, async () => {
      await page.goto(`${base}/console/#/domains/${encodeURIComponent(tenant.domain)}/bindings`);
      const row = page.locator(`[data-testid="bindings-table"] tr[data-kind="decision"][data-name=${css(r.list)}]`);
      await row.getByTestId('binding-rollback').click();
      await page.getByTestId('dialog').filter({ hasText: r.name }).waitFor();
      await confirmDialog(page);
      await page.locator(`[data-testid="bindings-table"] tr[data-name=${css(r.list)}][data-module=${css(r.to)}]`).waitFor();
      const shown = await row.getByTestId('binding-module').textContent();
      check(shown === r.name, `the rolled-back binding shows module ${shown}`);
      // The Modules page names the module and the binding that uses it again.
      await page.goto(`${base}/console/#/modules`);
      const module = page.locator(`[data-testid="modules-table"] tr[data-digest=${css(r.to)}]`);
      await module.getByTestId('module-used-by').filter({ hasText: r.list }).waitFor();
      check((await module.getByTestId('module-name').textContent()) === r.name.split(' ')[0], 'the module is not shown by its name');
    });
  }

  if (tenant.search) {
    const q = tenant.search;
    await step(`${t}-search`, async () => {
      await page.goto(`${base}/console/#/domains`);
      await page.getByTestId('search-input').fill(q.workflowId);
      await page.getByTestId('search-submit').click();
      if (!q.found) {
        await page.getByTestId('search-empty').waitFor();
        return;
      }
      const row = page.locator(`[data-testid="search-results"] tr[data-domain=${css(tenant.domain)}]`);
      await row.waitFor();
      check((await row.count()) === 1, `${await row.count()} runs of ${q.workflowId} found`);
      await openExecution(page, row);
      check(page.url().includes(encodeURIComponent(q.workflowId)), `the search opened ${page.url()}`);
    });
  }

  if (tenant.batch) {
    const b = tenant.batch;
    await step(`${t}-batch`, async () => {
      await page.goto(`${base}/console/#/domains/${encodeURIComponent(tenant.domain)}/executions`);
      await page.getByTestId('filter-by').selectOption('tag');
      await page.getByTestId('filter-tag').fill(b.tag);
      await page.getByTestId('filter-apply').click();
      await until(async () => (await executionRows(page).count()) === b.count, `the list filtered by tag ${b.tag} does not hold ${b.count} rows`);
      await page.getByTestId('batch-open').click();
      await page.getByTestId('batch-count').filter({ hasText: `${b.count} open runs` }).waitFor();
      await page.getByTestId('batch-action').selectOption('terminate');
      await page.getByTestId('batch-reason').fill(b.reason);
      await confirmDialog(page);
      await page.getByTestId('batch-outcome').filter({ hasText: `Terminated ${b.count} of ${b.count} runs.` }).waitFor();
      const statuses = executionRows(page).locator('.status');
      await until(
        async () => (await statuses.allTextContents()).filter((s) => s === 'TERMINATED').length === b.count,
        'the terminated runs are not shown TERMINATED',
      );
    });
  }

  // A run of this script's own, waiting on a task list nobody polls with its first decision task
  // queued: held while the run is paused, and what keeps the list in the Task lists tab. It is
  // terminated at the end of the second step, with the run tagged tenant=acme (`keyedWorkflowId`)
  // that the second step starts on the same list to see a task waiting under a fairness key.
  const held = { workflowId: 'console-paused', keyedWorkflowId: 'console-keyed', list: 'console-paused-nobody' };
  const heldRun = (runId) => ['domains', tenant.domain, 'workflows', held.workflowId, 'runs', runId];
  /** A time as the console shows it, in a regular expression. */
  const shownTime = String.raw`\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}`;

  await step(`${t}-pause-run`, async () => {
    const type = await registerIdleType(tenant, held.workflowId);
    const { runId } = await swfCall(tenant, 'StartWorkflowExecution', {
      domain: tenant.domain,
      workflowId: held.workflowId,
      workflowType: type,
    });
    held.runId = runId;
    const reason = 'run paused from the console';
    const row = await openRun(page, tenant.domain, 'open', held.workflowId, runId);
    await openExecution(page, row);
    const notice = page.getByTestId('run-paused');
    check((await notice.count()) === 0, 'the running run is shown paused');

    await page.getByTestId('action-pause').click();
    await page.getByTestId('dialog').filter({ hasText: held.workflowId }).waitFor();
    await page.getByTestId('pause-reason').fill(reason);
    await confirmDialog(page);
    await notice.filter({ hasText: reason }).waitFor();
    const said = (await notice.textContent()).trim();
    check(new RegExp(String.raw`Paused by \S+ at ${shownTime}: ${reason}`).test(said), `the run's pause notice reads ${said}`);
    await page.getByTestId('action-resume').waitFor();
    check((await page.getByTestId('action-pause').count()) === 0, 'the paused run still offers to pause it');
    const paused = await v1Call(tenant, 'GET', heldRun(runId));
    check(paused.paused?.reason === reason, `the API describes the run's pause as ${JSON.stringify(paused.paused)}`);

    await page.getByTestId('action-resume').click();
    await page.getByTestId('dialog').filter({ hasText: held.workflowId }).waitFor();
    await confirmDialog(page);
    await notice.waitFor({ state: 'detached' });
    await page.getByTestId('action-pause').waitFor();
    const resumed = await v1Call(tenant, 'GET', heldRun(runId));
    check(resumed.paused === undefined, `the API still describes the run's pause: ${JSON.stringify(resumed.paused)}`);
    check(resumed.status === 'OPEN', `the resumed run is ${resumed.status}`);
  });

  await step(`${t}-pause-task-list`, async () => {
    const reason = 'list paused from the console';
    await openDomain(page, tenant.domain);
    await page.getByTestId('tab-task-lists').click();
    await page.getByTestId('tab-task-lists').and(page.locator('[aria-current="page"]')).waitFor();
    const selector = `[data-testid="task-lists-table"] tr[data-kind="decision"][data-name=${css(held.list)}]`;
    const rowOf = (paused) => page.locator(`${selector}[data-paused="${paused}"]`);
    const row = page.locator(selector);
    const listed = async () =>
      (await v1Call(tenant, 'GET', ['domains', tenant.domain, 'task-lists'])).taskLists.find(
        (l) => l.kind === 'decision' && l.name === held.list,
      );
    await rowOf(false).waitFor();
    const before = (await row.getByTestId('task-list-paused').textContent()).trim();
    check(before === 'no', `the running list's Paused column reads ${before}`);

    await row.getByTestId('task-list-pause').click();
    await page.getByTestId('dialog').filter({ hasText: held.list }).waitFor();
    await page.getByTestId('task-list-pause-reason').fill(reason);
    await confirmDialog(page);
    await rowOf(true).waitFor();
    const said = (await row.getByTestId('task-list-paused').textContent()).trim();
    check(new RegExp(String.raw`^by \S+ at ${shownTime}: ${reason}$`).test(said), `the paused list's Paused column reads ${said}`);
    const paused = await listed();
    check(paused?.paused?.reason === reason, `the API describes the list as ${JSON.stringify(paused)}`);

    await row.getByTestId('task-list-resume').click();
    await rowOf(false).waitFor();
    const after = (await row.getByTestId('task-list-paused').textContent()).trim();
    check(after === 'no', `the resumed list's Paused column reads ${after}`);
    const resumed = await listed();
    check(resumed !== undefined && resumed.paused === undefined, `the API describes the resumed list as ${JSON.stringify(resumed)}`);

    // Limits on the same list, set and then removed through its Limit… dialog, which sends only
    // what was changed: a rate; a concurrency cap beside it, the rate kept; the rate removed, the
    // cap kept; fairness keys by the tag prefix tenant=, acme weighing 3, with what waits under
    // each key (the held run has no key; a run of this script's own is tagged tenant=acme); then
    // the cap and the keys removed together.
    const limitsCell = row.getByTestId('task-list-limits');
    const limitsRead = (lines) =>
      until(async () => {
        const shown = lines.length === 0 ? [(await limitsCell.textContent()).trim()] : await limitsCell.locator('div').allTextContents();
        return JSON.stringify(shown) === JSON.stringify(lines.length === 0 ? ['no limit'] : lines);
      }, `the list's Limits column does not read ${lines.length === 0 ? 'no limit' : lines.join('; ')}`);
    const keysCell = row.getByTestId('task-list-keys');
    const keysRead = (words) =>
      until(async () => (await keysCell.textContent()).trim() === words, `the list's keys do not read ${words}`);
    const fields = {
      rate: page.getByTestId('task-list-limit-rate'),
      concurrency: page.getByTestId('task-list-limit-concurrency'),
      tagPrefix: page.getByTestId('task-list-limit-tag-prefix'),
      weights: page.getByTestId('task-list-limit-weights'),
      defaultWeight: page.getByTestId('task-list-limit-default-weight'),
    };
    /** Opens the list's Limit… dialog and checks that it offers the list's limits as `offers`. */
    const openLimit = async (offers) => {
      await row.getByTestId('task-list-limit').click();
      await page.getByTestId('dialog').filter({ hasText: held.list }).waitFor();
      for (const [name, input] of Object.entries(fields)) {
        const value = await input.inputValue();
        const want = offers[name] ?? '';
        check(value === want, `the limit dialog offers ${name} ${JSON.stringify(value)}, not ${JSON.stringify(want)}`);
      }
    };
    await limitsRead([]);
    await openLimit({});
    check(await fields.weights.isDisabled(), 'the limit dialog takes weights without a tag prefix');
    await fields.rate.fill('5');
    await confirmDialog(page);
    await limitsRead(['at most 5/s']);
    const limited = await listed();
    check(limited?.rate === 5, `the API describes the limited list as ${JSON.stringify(limited)}`);

    await openLimit({ rate: '5' });
    await fields.concurrency.fill('3');
    await confirmDialog(page);
    await limitsRead(['at most 5/s', 'at most 3 started']);
    const capped = await listed();
    check(capped?.rate === 5 && capped.concurrency === 3, `the API describes the capped list as ${JSON.stringify(capped)}`);

    await openLimit({ rate: '5', concurrency: '3' });
    await fields.rate.fill('');
    await confirmDialog(page);
    await limitsRead(['at most 3 started']);
    const unlimited = await listed();
    check(
      unlimited !== undefined && unlimited.rate === undefined && unlimited.concurrency === 3,
      `the API describes the list without a rate as ${JSON.stringify(unlimited)}`,
    );

    await openLimit({ concurrency: '3' });
    await fields.tagPrefix.fill('tenant=');
    await fields.weights.fill('acme=3');
    await confirmDialog(page);
    await limitsRead(['at most 3 started', 'fair by tag tenant= (acme 3, others 1)']);
    const keyed = await listed();
    const fairness = keyed?.fairness;
    check(
      keyed?.concurrency === 3 &&
        fairness?.tagPrefix === 'tenant=' &&
        fairness.defaultWeight === 1 &&
        JSON.stringify(fairness.weights) === JSON.stringify({ acme: 3 }),
      `the API describes the keyed list as ${JSON.stringify(keyed)}`,
    );
    await keysRead('(no key) 1');
    const type = await registerIdleType(tenant, held.workflowId);
    const { runId: keyedRunId } = await swfCall(tenant, 'StartWorkflowExecution', {
      domain: tenant.domain,
      workflowId: held.keyedWorkflowId,
      workflowType: type,
      tagList: ['tenant=acme'],
    });
    held.keyedRunId = keyedRunId;
    await until(
      async () => (await listed())?.keys?.some((k) => k.key === 'acme' && k.pending === 1 && k.weight === 3),
      'the API shows no task waiting under the key acme, of weight 3',
    );
    await page.getByTestId('task-lists-refresh').click();
    await keysRead('acme 1 · (no key) 1');

    await openLimit({ concurrency: '3', tagPrefix: 'tenant=', weights: 'acme=3', defaultWeight: '1' });
    await fields.concurrency.fill('');
    await fields.tagPrefix.fill('');
    await confirmDialog(page);
    await limitsRead([]);
    const unkeyed = await listed();
    check(
      unkeyed !== undefined && unkeyed.rate === undefined && unkeyed.concurrency === undefined && unkeyed.fairness === undefined,
      `the API describes the list without limits as ${JSON.stringify(unkeyed)}`,
    );

    // Done with the runs.
    for (const [workflowId, runId] of [
      [held.workflowId, held.runId],
      [held.keyedWorkflowId, held.keyedRunId],
    ]) {
      await swfCall(tenant, 'TerminateWorkflowExecution', {
        domain: tenant.domain,
        workflowId,
        runId,
        reason: 'the console test is done with it',
      });
    }
  });

  await step(`${t}-schedules`, async () => {
    // A type of this script's own, on a task list nobody polls: the run the trigger starts waits
    // for a decision task that never comes, and is terminated at the end.
    const type = await registerIdleType(tenant, 'console-scheduled');
    const id = 'console-hourly';
    const note = 'paused from the console';
    // allowAll: should the hour strike during the step, the trigger still starts its run.
    await v1Call(tenant, 'POST', ['domains', tenant.domain, 'schedules', id], {
      spec: { every: 3600 },
      action: { workflowType: type },
      overlap: 'allowAll',
    });
    await openDomain(page, tenant.domain);
    await page.getByTestId('tab-schedules').click();
    await page.getByTestId('tab-schedules').and(page.locator('[aria-current="page"]')).waitFor();
    const rowOf = (paused) => page.locator(`[data-testid="schedules-table"] tr[data-id=${css(id)}][data-paused="${paused}"]`);
    const row = page.locator(`[data-testid="schedules-table"] tr[data-id=${css(id)}]`);
    await rowOf(false).waitFor();
    const spec = await row.getByTestId('schedule-spec').textContent();
    check(spec === 'every 1h', `the schedule's spec reads ${spec}`);
    const shown = await row.textContent();
    check(shown.includes(`${type.name}:${type.version}`), `the schedule's row reads ${shown}`);

    await row.getByTestId('schedule-pause').click();
    await page.getByTestId('dialog').filter({ hasText: id }).waitFor();
    await page.getByTestId('schedule-pause-note').fill(note);
    await confirmDialog(page);
    await rowOf(true).waitFor();
    await row.getByTestId('schedule-next').filter({ hasText: `paused: ${note}` }).waitFor();

    await row.getByTestId('schedule-unpause').click();
    await rowOf(false).waitFor();
    await until(
      async () => /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test((await row.getByTestId('schedule-next').textContent()).trim()),
      'the unpaused schedule does not show its next time',
    );

    await row.getByTestId('schedule-trigger').click();
    await page.getByTestId('schedules-outcome').filter({ hasText: '1 run started' }).waitFor();
    await until(async () => Number(await row.locator('td.num').first().textContent()) >= 1, 'the row does not count the run started');
    // The row opens to the run it started, linked to the run's page.
    await row.getByTestId('schedule-disclose').click();
    const link = page.getByTestId('schedule-running').locator('a', { hasText: `${id}-` });
    await link.first().waitFor();
    const to = await link.first().getAttribute('href');
    check(to.includes(`/executions/${encodeURIComponent(id)}-`), `the open run links to ${to}`);
    const { info } = await v1Call(tenant, 'GET', ['domains', tenant.domain, 'schedules', id]);
    check((info.running ?? []).length >= 1, 'the API names no open run of the schedule');

    await row.getByTestId('schedule-delete').click();
    await page.getByTestId('dialog').filter({ hasText: id }).waitFor();
    await confirmDialog(page);
    const empty = page.getByTestId('schedules-empty');
    await empty.waitFor();
    check((await empty.textContent()).includes('weft schedule create'), `the empty list says ${await empty.textContent()}`);
    try {
      await v1Call(tenant, 'GET', ['domains', tenant.domain, 'schedules', id]);
      throw new Error('the API still describes the deleted schedule');
    } catch (e) {
      if (e.type !== 'UnknownResourceFault') throw e;
    }
    // The runs it started run on after it is gone: done with them here.
    for (const { workflowId, runId } of info.running) {
      await swfCall(tenant, 'TerminateWorkflowExecution', { domain: tenant.domain, workflowId, runId, reason: 'the console test is done with it' });
    }
  });

  await step(`${t}-batch-job`, async () => {
    // Two runs of this script's own, of a type on a task list nobody polls, with a tag of its own:
    // the job signals them (a signal changes nothing else of theirs), and they are terminated at
    // the end. At a run a second (the server's clock is the real one), the job runs a few seconds.
    const type = await registerIdleType(tenant, 'console-batched');
    const tag = 'console-batch-job';
    const signalName = 'console-batch-ping';
    const identity = 'console-test';
    const runs = [];
    for (const n of [1, 2]) {
      const workflowId = `console-batched-${n}`;
      const { runId } = await swfCall(tenant, 'StartWorkflowExecution', {
        domain: tenant.domain,
        workflowId,
        workflowType: type,
        tagList: [tag],
      });
      runs.push({ workflowId, runId });
    }
    const job = await v1Call(tenant, 'POST', ['domains', tenant.domain, 'batches'], {
      filter: { tag },
      action: 'signal',
      signalName,
      input: 'from the console test',
      rate: 1,
      identity,
    });
    check(job.state === 'running' && job.matched === 2 && job.rate === 1, `the API made the job as ${JSON.stringify(job)}`);

    await openDomain(page, tenant.domain);
    await page.getByTestId('tab-batches').click();
    await page.getByTestId('tab-batches').and(page.locator('[aria-current="page"]')).waitFor();
    const selector = `[data-testid="batch-jobs-table"] tr[data-id=${css(job.id)}]`;
    const row = page.locator(selector);
    await row.waitFor();
    // The tab reads the list again by itself while the job runs: no Refresh is clicked.
    await page.locator(`${selector}[data-state="done"]`).waitFor({ timeout: 30_000 });
    const state = (await row.getByTestId('batch-state').textContent()).trim();
    check(state === 'done', `the done job's state reads ${state}`);
    const bar = await row.getByTestId('batch-progress').evaluate((p) => ({ value: p.value, max: p.max }));
    check(bar.value === 2 && bar.max === 2, `the done job's progress bar is at ${bar.value} of ${bar.max}`);
    const shown = (await row.textContent()).replace(/\s+/g, ' ');
    for (const words of [`signal ${signalName}`, '2 done, 0 failed of 2', '1/s', `by ${identity}`]) {
      check(shown.includes(words), `the job's row reads ${shown}, without ${words}`);
    }
    check((await row.getByTestId('batch-cancel').count()) === 0, 'the done job still offers to cancel it');
    const listed = await page.locator('[data-testid="batch-jobs-table"] tbody tr[data-id]').count();
    check(listed === 1, `the tab lists ${listed} batch jobs, not only this tenant's one`);

    // A click on the row opens its details: which runs, and no failures.
    await row.locator('td').nth(1).click();
    const details = page.getByTestId('batch-details');
    await details.waitFor();
    const said = (await details.textContent()).replace(/\s+/g, ' ');
    check(said.includes(`open runs with tag ${tag}`) && said.includes('None.'), `the job's details read ${said}`);

    const described = await v1Call(tenant, 'GET', ['domains', tenant.domain, 'batches', job.id]);
    check(
      described.state === 'done' && described.done === 2 && described.failed === 0,
      `the API describes the job as ${JSON.stringify(described)}`,
    );
    for (const execution of runs) {
      const { events } = await swfCall(tenant, 'GetWorkflowExecutionHistory', { domain: tenant.domain, execution });
      const signals = events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === signalName);
      check(signals.length === 1, `${execution.workflowId} received the job's signal ${signals.length} times`);
    }
    // Done with the runs.
    for (const { workflowId, runId } of runs) {
      await swfCall(tenant, 'TerminateWorkflowExecution', { domain: tenant.domain, workflowId, runId, reason: 'the console test is done with it' });
    }
  });

  await step(`${t}-batch-reset`, async () => {
    // Two runs of this script's own with a tag of its own, of a type on a task list nobody polls
    // but this step, once: the first run's first decision task is started (its poll is not
    // answered), the second's never is. A reset job made from the Executions list's "Act on
    // matching runs" resets the first to its first decision task and counts the second as failed.
    const type = await registerIdleType(tenant, 'console-reset');
    const tag = 'console-batch-reset';
    const reason = 'reset from the console';
    const start = async (workflowId) => {
      const { runId } = await swfCall(tenant, 'StartWorkflowExecution', { domain: tenant.domain, workflowId, workflowType: type, tagList: [tag] });
      return { workflowId, runId };
    };
    const decided = await start('console-reset-decided');
    const task = await swfCall(tenant, 'PollForDecisionTask', {
      domain: tenant.domain,
      taskList: { name: `${type.name}-nobody` },
      identity: 'console-test',
    });
    check(
      task.workflowExecution?.runId === decided.runId,
      `the poll handed out ${JSON.stringify(task.workflowExecution)}, not the decision task of ${decided.workflowId}`,
    );
    const undecided = await start('console-reset-undecided');

    await page.goto(`${base}/console/#/domains/${encodeURIComponent(tenant.domain)}/executions`);
    await page.getByTestId('filter-by').selectOption('tag');
    await page.getByTestId('filter-tag').fill(tag);
    await page.getByTestId('filter-apply').click();
    await until(async () => (await executionRows(page).count()) === 2, `the list filtered by tag ${tag} does not hold 2 rows`);
    await page.getByTestId('batch-open').click();
    await page.getByTestId('batch-count').filter({ hasText: '2 open runs' }).waitFor();
    await page.getByTestId('batch-action').selectOption('reset');
    await page.getByTestId('batch-reset-to').selectOption('first');
    await page.getByTestId('batch-reason').fill(reason);
    await page.getByTestId('batch-as-job').check();
    await page.getByTestId('batch-rate').fill('1');
    const label = (await page.getByTestId('dialog-confirm').textContent()).trim();
    check(label === 'Reset 2 open runs as a batch job', `the confirm button reads ${label}`);
    await confirmDialog(page);
    const outcome = page.getByTestId('batch-outcome');
    await outcome.filter({ hasText: 'Made batch job' }).waitFor();
    const said = (await outcome.textContent()).replace(/\s+/g, ' ');
    const made = /Made batch job (\S+) \(reset, 2 open runs, 1\/s\)\./.exec(said);
    check(made, `the outcome reads ${said}`);
    const id = made[1];

    // Its link leads to the Batch jobs tab, which reads the list again while the job runs.
    await outcome.getByTestId('batch-job-link').click();
    await page.getByTestId('tab-batches').and(page.locator('[aria-current="page"]')).waitFor();
    const selector = `[data-testid="batch-jobs-table"] tr[data-id=${css(id)}]`;
    const row = page.locator(selector);
    await row.waitFor();
    await page.locator(`${selector}[data-state="done"]`).waitFor({ timeout: 30_000 });
    const words = (await row.getByTestId('batch-action-words').textContent()).trim();
    check(words === 'reset', `the reset job's action reads ${words}`);
    const progress = (await row.getByTestId('batch-progress-words').textContent()).trim();
    check(progress === '1 done, 1 failed of 2', `the reset job's progress reads ${progress}`);
    const bar = await row.getByTestId('batch-progress').evaluate((p) => ({ value: p.value, max: p.max }));
    check(bar.value === 2 && bar.max === 2, `the done reset job's progress bar is at ${bar.value} of ${bar.max}`);
    // Newest first.
    const first = await page.locator('[data-testid="batch-jobs-table"] tbody tr[data-id]').first().getAttribute('data-id');
    check(first === id, `the tab lists job ${first} first, not the newest, ${id}`);

    await row.getByTestId('batch-disclose').click();
    const details = page.getByTestId('batch-details');
    await details.waitFor();
    const shown = (await details.textContent()).replace(/\s+/g, ' ');
    for (const words of [`open runs with tag ${tag}`, 'the first decision task', reason]) {
      check(shown.includes(words), `the reset job's details read ${shown}, without ${words}`);
    }
    const failure = details.locator(`[data-testid="batch-failures"] tr[data-workflow-id=${css(undecided.workflowId)}]`);
    await failure.waitFor();
    const why = (await failure.textContent()).replace(/\s+/g, ' ');
    check(why.includes('No decision task of the run was started'), `the failure of ${undecided.workflowId} reads ${why}`);

    const described = await v1Call(tenant, 'GET', ['domains', tenant.domain, 'batches', id]);
    check(
      described.action === 'reset' && described.to === 'first' && described.reason === reason && described.state === 'done' &&
        described.done === 1 && described.failed === 1 && described.rate === 1,
      `the API describes the reset job as ${JSON.stringify(described)}`,
    );
    // The decided run was terminated with the job's reason, and a new run of its workflow is open.
    const old = await swfCall(tenant, 'DescribeWorkflowExecution', { domain: tenant.domain, execution: decided });
    check(old.executionInfo.closeStatus === 'TERMINATED', `the reset run is ${JSON.stringify(old.executionInfo)}`);
    const { events } = await swfCall(tenant, 'GetWorkflowExecutionHistory', { domain: tenant.domain, execution: decided, reverseOrder: true });
    const terminated = events.find((e) => e.workflowExecutionTerminatedEventAttributes)?.workflowExecutionTerminatedEventAttributes;
    check(terminated?.reason === reason, `the reset run was terminated as ${JSON.stringify(terminated)}`);
    const open = await swfCall(tenant, 'ListOpenWorkflowExecutions', {
      domain: tenant.domain,
      startTimeFilter: { oldestDate: 0 },
      executionFilter: { workflowId: decided.workflowId },
    });
    const newRuns = open.executionInfos.map((i) => i.execution.runId);
    check(newRuns.length === 1 && newRuns[0] !== decided.runId, `the open runs of ${decided.workflowId} are ${newRuns}`);
    // Done with the runs.
    for (const { workflowId, runId } of [{ workflowId: decided.workflowId, runId: newRuns[0] }, undecided]) {
      await swfCall(tenant, 'TerminateWorkflowExecution', { domain: tenant.domain, workflowId, runId, reason: 'the console test is done with it' });
    }
  });

  await step(`${t}-sign-out`, async () => {
    await page.getByTestId('sign-out').click();
    await page.getByTestId('signin-key').waitFor();
  });

  await step(`${t}-page-errors`, async () => check(pageErrors.length === 0, 'the page threw errors'));
  await page.context().close();
}

// On a phone, the executions list fits the screen: only scroll containers may be wider.
await step('phone-executions', async () => {
  const tenant = config.tenants[0];
  const page = await newPage({ width: 390, height: 844 });
  await signIn(page, tenant);
  await page.goto(`${base}/console/#/domains/${encodeURIComponent(tenant.domain)}/executions`);
  await page.locator('[data-testid="executions-table"], [data-testid="executions-empty"]').first().waitFor();
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  check(width <= 391, `the page is ${width} px wide at a 390 px viewport`);
  await page.context().close();
});

// Pictures of the main pages for the README, of the first tenant's domain.
if (config.readme) {
  await step('readme-screenshots', async () => {
    mkdirSync(config.readme, { recursive: true });
    const tenant = config.tenants[0];
    const d = encodeURIComponent(tenant.domain);
    const page = await newPage();
    await signIn(page, tenant);
    const shoot = async (name, hash, ready) => {
      await page.goto(`${base}/console/${hash}`);
      await page.locator(ready).first().waitFor();
      // Let the last requests of the page land (counts, module sizes).
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: join(config.readme, `${name}.png`) });
    };
    await shoot('domains', '#/domains', '[data-testid="domains-table"]');
    await shoot('executions', `#/domains/${d}/executions`, '[data-testid="executions-table"], [data-testid="executions-empty"]');
    if (tenant.completed) {
      const c = tenant.completed;
      await shoot('execution', `#/domains/${d}/executions/${encodeURIComponent(c.workflowId)}/${encodeURIComponent(c.runId)}`, '[data-testid="timeline"]');
    }
    await shoot('task-lists', `#/domains/${d}/task-lists`, '[data-testid="task-lists-table"], .empty, [data-testid="error"]');
    await shoot('bindings', `#/domains/${d}/bindings`, '[data-testid="bindings-table"], .empty, [data-testid="error"]');
    await shoot('modules', '#/modules', '[data-testid="modules-table"], .empty, [data-testid="error"]');
    await page.context().close();
  });
}

await browser.close();
console.log('ok');
