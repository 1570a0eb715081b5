//! `weft demo`: the whole story on a fresh data directory. It starts the service in-process,
//! registers the example domain and types, uploads and binds the example guests, starts a batch
//! of orders (some with a failing card, one cancelled by signal), shows progress while they run,
//! then prints each order's outcome and timeline, runs one quote (child workflows and a
//! Lambda-style function), and prints the throughput.
//!
//! The demo drives the service through the same operations HTTP clients reach, in-process.

mod orders;
mod timeline;

use std::future::Future;
use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use serde::Serialize;

use crate::api::{self, Op, op};
use crate::examples;
use crate::fault::Fault;
use crate::model::events::{Event, HistoryEvent};
use crate::model::{Bind, BindingKind, ModuleLabel, WorkflowExecution};
use crate::ops::domains::RegisterDomainInput;
use crate::ops::history::{DescribeInput, HistoryInput};
use crate::ops::{Ctx, Service, modules, wasm};

use self::orders::Registration;
use crate::tenancy::Caller;
use crate::{Config, DEFAULT_ACCOUNT_ID, Weft};

/// What `weft demo` does.
#[derive(Clone, Debug)]
pub struct DemoOptions {
    /// Orders to start.
    pub orders: u32,
    /// Where the service listens (port 0 picks a free one); `None`: [`crate::DEFAULT_LISTEN`],
    /// or a free port on loopback when that one is taken.
    pub listen: Option<String>,
    /// The data directory; `None`: the state is kept in memory only ([`Config::ephemeral`]).
    pub data_dir: Option<PathBuf>,
    /// Keep serving after the demo, until `shutdown`.
    pub serve: bool,
    /// Print each run's outcome and the summary, not the set-up, progress and timelines.
    pub quiet: bool,
    /// Run on a clock that jumps to the next timer or timeout whenever the service is idle.
    pub time_skipping: bool,
}

/// The domain and region the demo works in; AWS clients pointed at the server see it there.
const DOMAIN: &str = "weft-demo";
const REGION: &str = "us-east-1";

/// Runs the demo. With `options.serve`, keeps serving afterwards until `shutdown` completes.
pub async fn run(
    options: DemoOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    if options.orders == 0 {
        bail!("--orders must be at least 1");
    }
    let ephemeral = options.data_dir.is_none();
    let data_dir = options.data_dir.clone().unwrap_or_else(std::env::temp_dir);
    let mut config = Config::new(&data_dir);
    config.time_skipping = options.time_skipping;
    config.ephemeral = ephemeral;
    let weft = Weft::open(config)?;
    let svc = weft.service();
    let listener = match &options.listen {
        Some(addr) => crate::listen(addr).await,
        None => listen_anywhere().await,
    }
    .map_err(anyhow::Error::msg)?;
    let addr = listener.local_addr()?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(weft.serve(listener, async move {
        let _ = stopped.await;
    }));
    let state = match ephemeral {
        true => "state in memory, gone when the demo ends; --data DIR keeps it".to_owned(),
        false => format!("data in {}", data_dir.display()),
    };
    println!("Weft is serving SWF on http://{addr} ({state})");

    let tenant = svc
        .tenants
        .by_account(DEFAULT_ACCOUNT_ID)
        .cloned()
        .context("the open tenant is missing")?;
    let demo = Demo {
        svc,
        ctx: Ctx::new(Caller {
            tenant,
            region: REGION.to_owned(),
        }),
        quiet: options.quiet,
        ephemeral,
    };
    let mut shutdown = std::pin::pin!(shutdown);
    let outcome = tokio::select! {
        outcome = demo.orders(options.orders) => outcome,
        () = &mut shutdown => Err(anyhow::anyhow!("interrupted")),
    };
    // The demo's handle on the service must go before the server stops: the store closes only
    // once nobody holds it.
    drop(demo);
    if outcome.is_ok() && options.serve {
        println!();
        println!("Still serving on http://{addr}; press Ctrl-C to stop.");
        println!("Open the console at http://{addr}/console/ (metrics at /metrics), or try:");
        println!(
            "  export AWS_ACCESS_KEY_ID=weft AWS_SECRET_ACCESS_KEY=weft AWS_DEFAULT_REGION={REGION}"
        );
        println!("  aws --endpoint-url http://{addr} swf list-closed-workflow-executions \\");
        println!("      --domain {DOMAIN} --start-time-filter oldestDate=0");
        shutdown.await;
    }
    let _ = stop.send(());
    server.await.context("the server task failed")??;
    outcome
}

/// The usual address, or any free port on loopback when something holds the usual one: the
/// demo only needs somewhere to serve, and says where.
async fn listen_anywhere() -> Result<tokio::net::TcpListener, String> {
    match tokio::net::TcpListener::bind(crate::DEFAULT_LISTEN).await {
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => crate::listen("127.0.0.1:0").await,
        bound => bound.map_err(|e| format!("cannot listen on {}: {e}", crate::DEFAULT_LISTEN)),
    }
}

struct Demo {
    svc: Arc<Service>,
    /// The open tenant, in the demo's region.
    ctx: Ctx,
    /// See [`DemoOptions::quiet`].
    quiet: bool,
    /// Whether the state is kept in memory only (no `--data`).
    ephemeral: bool,
}

impl Demo {
    async fn call<O: Op>(&self, input: O::Input) -> anyhow::Result<O::Output>
    where
        O::Input: Serialize,
    {
        api::call::<O>(&self.svc, &self.ctx, input)
            .await
            .map_err(|fault| anyhow::anyhow!("{}: {fault}", O::OPERATION.name()))
    }

    fn ctx(&self) -> Ctx {
        self.ctx.clone()
    }

    /// Registers the domain and the example's types, and uploads and binds its guests.
    async fn set_up(&self) -> anyhow::Result<()> {
        self.call::<op::RegisterDomain>(RegisterDomainInput {
            name: DOMAIN.to_owned(),
            description: None,
            workflow_execution_retention_period_in_days: "1".to_owned(),
            tags: Vec::new(),
        })
        .await?;
        for registration in orders::registrations(DOMAIN) {
            match registration {
                Registration::Workflow(input) => {
                    self.call::<op::RegisterWorkflowType>(input).await?;
                }
                Registration::Activity(input) => {
                    self.call::<op::RegisterActivityType>(input).await?;
                }
            }
        }
        for guest in orders::GUESTS {
            // Embedded in this binary when it was built.
            let code = examples::component(guest.name)
                .with_context(|| format!("{} is not an example guest", guest.name))?;
            let label = ModuleLabel {
                name: Some(guest.name.to_owned()),
                version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            };
            let module =
                modules::upload_module(&self.svc, &self.ctx(), code.to_vec(), label, false)
                    .await
                    .map_err(fault(&format!("uploading {}", guest.name)))?;
            let bind = Bind {
                concurrency: Some(4),
                ..Bind::module(&module.digest)
            };
            wasm::bind(
                &self.svc,
                &self.ctx(),
                DOMAIN.to_owned(),
                guest.kind,
                guest.serves.to_owned(),
                bind,
            )
            .await
            .map_err(fault(&format!("binding {}", guest.name)))?;
            let kind = match guest.kind {
                BindingKind::Decision => "decision task list",
                BindingKind::Activity => "activity task list",
                BindingKind::Function => "function",
            };
            if self.quiet {
                continue;
            }
            println!(
                "  {:<18} {} ({} KiB) serves {kind} {:?}",
                guest.name,
                &module.digest[..12],
                module.size / 1024,
                guest.serves
            );
        }
        Ok(())
    }

    /// The demo proper: set up, start the orders, follow them, report.
    async fn orders(&self, count: u32) -> anyhow::Result<()> {
        let orders = orders::orders(count);
        if !self.quiet {
            println!(
                "Registering domain {DOMAIN:?} and the examples' types; uploading and binding \
                 the guests:"
            );
        }
        self.set_up().await?;
        if !self.quiet {
            println!(
                "Starting {count} orders ({} with a failing card, {} cancelled by signal)...",
                orders.iter().filter(|o| o.card_fails).count(),
                orders.iter().filter(|o| o.cancel).count()
            );
        }
        let started = Instant::now();
        let mut runs = Vec::new();
        for order in &orders {
            let run = self
                .call::<op::StartWorkflowExecution>(order.start(DOMAIN))
                .await?;
            if order.cancel {
                self.call::<op::SignalWorkflowExecution>(order.cancel_signal(DOMAIN))
                    .await?;
            }
            let execution = WorkflowExecution {
                workflow_id: order.workflow_id.as_str().into(),
                run_id: run.run_id,
            };
            runs.push((order, execution));
        }
        let executions: Vec<_> = runs.iter().map(|(_, e)| e.clone()).collect();
        let closed = self.wait_for(&executions).await?;
        let elapsed = started.elapsed();
        let (mut decisions, mut activities) = (0, 0);
        for ((order, execution), status) in runs.iter().zip(closed) {
            let history = self.history(execution).await?;
            let count = |is: fn(&Event) -> bool| history.iter().filter(|e| is(&e.event)).count();
            decisions += count(|e| matches!(e, Event::DecisionTaskCompleted(_)));
            activities += count(|e| matches!(e, Event::ActivityTaskStarted(_)));
            if !self.quiet {
                println!();
            }
            println!(
                "{} ({}): {status}, {} events",
                order.workflow_id,
                order.summary,
                history.len()
            );
            if self.quiet {
                continue;
            }
            for line in timeline::lines(&history) {
                println!("{line}");
            }
        }
        let secs = elapsed.as_secs_f64();
        self.quote().await?;
        println!();
        let kept = match self.ephemeral {
            true => "every change kept in memory (--data DIR commits each to disk first)",
            false => "every change committed to disk before it was acknowledged",
        };
        println!(
            "{count} orders closed in {secs:.2} s, each waiting out its 1 s cancellation window: \
             {decisions} decision tasks and {activities} activity tasks ran in-process as Wasm, \
             {:.0} tasks/s, {kept}.",
            (decisions + activities) as f64 / secs
        );
        Ok(())
    }

    /// The quote example: a child workflow per line item, each pricing its item with the
    /// Lambda-style function `price`; the parent totals them.
    async fn quote(&self) -> anyhow::Result<()> {
        if !self.quiet {
            println!();
            println!(
                "And a quote: one child workflow per line item, each running the function \
                 `price`..."
            );
        }
        let run = self
            .call::<op::StartWorkflowExecution>(orders::quote_start(DOMAIN))
            .await?;
        let quote = WorkflowExecution {
            workflow_id: orders::QUOTE_ID.into(),
            run_id: run.run_id,
        };
        let status = self.wait_for(std::slice::from_ref(&quote)).await?;
        let history = self.history(&quote).await?;
        println!(
            "{}: {}, {} events",
            quote.workflow_id,
            status[0],
            history.len()
        );
        if self.quiet {
            return Ok(());
        }
        for line in timeline::lines(&history) {
            println!("{line}");
        }
        let children = history.iter().filter_map(|e| match &e.event {
            Event::ChildWorkflowExecutionStarted(a) => Some(&a.workflow_execution),
            _ => None,
        });
        for child in children {
            let history = self.history(child).await?;
            println!("  child {}, {} events", child.workflow_id, history.len());
            for line in timeline::lines(&history) {
                println!("  {line}");
            }
        }
        Ok(())
    }

    /// Waits until every run is closed, showing progress; answers each one's close status.
    async fn wait_for(&self, runs: &[WorkflowExecution]) -> anyhow::Result<Vec<String>> {
        let tty = std::io::stdout().is_terminal() && !self.quiet;
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let mut statuses = Vec::with_capacity(runs.len());
            for execution in runs {
                let described = self
                    .call::<op::DescribeWorkflowExecution>(DescribeInput {
                        domain: DOMAIN.to_owned(),
                        execution: execution.clone(),
                    })
                    .await?;
                let status = described.execution_info.close_status;
                statuses.push(status.map(timeline::wire_name));
            }
            let closed = statuses.iter().filter(|s| s.is_some()).count();
            if tty {
                print!("\r  {closed}/{} closed", runs.len());
                let _ = std::io::stdout().flush();
            }
            if closed == runs.len() {
                if !tty && !self.quiet {
                    println!("  {closed}/{} closed", runs.len());
                }
                return Ok(statuses.into_iter().flatten().collect());
            }
            if Instant::now() > deadline {
                bail!(
                    "still open after two minutes: {closed}/{} closed",
                    runs.len()
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The whole history of a run.
    async fn history(&self, execution: &WorkflowExecution) -> anyhow::Result<Vec<HistoryEvent>> {
        let mut events = Vec::new();
        let mut token = None;
        loop {
            let page = self
                .call::<op::GetWorkflowExecutionHistory>(HistoryInput {
                    domain: DOMAIN.to_owned(),
                    execution: execution.clone(),
                    next_page_token: token,
                    maximum_page_size: None,
                    reverse_order: false,
                })
                .await?;
            events.extend(
                page.events
                    .parse::<HistoryEvent>()
                    .map_err(fault("reading an event"))?,
            );
            token = page.next_page_token;
            if token.is_none() {
                return Ok(events);
            }
        }
    }
}

fn fault(what: &str) -> impl FnOnce(Fault) -> anyhow::Error + '_ {
    move |fault| anyhow::anyhow!("{what}: {fault}")
}
