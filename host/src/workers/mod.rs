//! In-process workers: for each binding, `concurrency` loops that poll its task list through the
//! very operations HTTP pollers use (so one task goes to exactly one worker, in-process or
//! external), run the bound guest, and answer as an SWF worker would.
//!
//! The supervisor follows the bindings table: at start, and after every committed change to it,
//! it starts the workers of new bindings and stops those of removed or replaced ones.

mod activity;
mod backoff;
mod decider;
mod function;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::api::{self, Op};
use crate::fault::Fault;
use crate::metrics::{GuestOutcome, Labels};
use crate::model::{
    Binding, BindingKind, GuestFailureRecord, RunLogLine, TaskList, WorkflowExecution,
};
use crate::ops::{Ctx, Service};
use crate::runtime::{Call, GuestFailure, GuestLine, LogTap, Module};
use crate::tenancy::{Caller, Tenant};

/// How long a worker waits before polling again after an unexpected error.
const ERROR_PAUSE: Duration = Duration::from_secs(1);

/// One binding's workers.
struct Running {
    binding: Binding,
    stop: watch::Sender<bool>,
}

/// Runs the workers of every binding until `stopping` turns true, then waits for them to finish
/// the tasks they hold.
pub(crate) async fn supervise(svc: Arc<Service>, mut stopping: watch::Receiver<bool>) {
    let mut changed = svc.bindings_changed.subscribe();
    let mut running: HashMap<(u64, BindingKind, String), Running> = HashMap::new();
    let mut workers = JoinSet::new();
    loop {
        changed.mark_unchanged();
        let seen = changed.clone();
        match current_bindings(&svc).await {
            Ok(bindings) => follow(&svc, &mut running, &mut workers, bindings, seen).await,
            Err(fault) => tracing::error!("reading the bindings: {fault}"),
        }
        tokio::select! {
            _ = changed.changed() => {}
            _ = stopping.wait_for(|s| *s) => break,
        }
        // Reap finished workers so the set does not grow.
        while workers.try_join_next().is_some() {}
    }
    for run in running.values() {
        run.stop.send_replace(true);
    }
    while workers.join_next().await.is_some() {}
}

async fn current_bindings(svc: &Service) -> Result<Vec<(u64, Binding)>, Fault> {
    svc.store.read(|tx| Ok(tx.bindings(None)?)).await
}

/// Starts and stops workers so that exactly `bindings` run.
async fn follow(
    svc: &Arc<Service>,
    running: &mut HashMap<(u64, BindingKind, String), Running>,
    workers: &mut JoinSet<()>,
    bindings: Vec<(u64, Binding)>,
    seen: watch::Receiver<()>,
) {
    let wanted: HashMap<_, _> = bindings
        .into_iter()
        .map(|(domain, b)| ((domain, b.kind, b.name.clone()), b))
        .collect();
    running.retain(|key, run| {
        let keep = wanted.get(key) == Some(&run.binding);
        if !keep {
            run.stop.send_replace(true);
        }
        keep
    });
    for (key, binding) in wanted {
        if running.contains_key(&key) {
            continue;
        }
        let module = match load(svc, &binding).await {
            Ok(module) => module,
            Err(e) => {
                tracing::error!(
                    domain = binding.domain,
                    binding = binding.name,
                    "cannot load module {}: {e}",
                    binding.module
                );
                continue;
            }
        };
        let Some(tenant) = svc.tenants.by_account(&binding.account).cloned() else {
            tracing::warn!(
                domain = binding.domain,
                binding = binding.name,
                "account {} is no tenant's; its binding is not served",
                binding.account
            );
            continue;
        };
        let (stop, stopped) = watch::channel(false);
        let worker = Arc::new(Worker::new(
            svc,
            key.0,
            &binding,
            module,
            (tenant, stopped.clone()),
            seen.clone(),
        ));
        for _ in 0..binding.concurrency {
            let (worker, stopped) = (worker.clone(), stopped.clone());
            workers.spawn(async move { worker.serve(stopped).await });
        }
        running.insert(key, Running { binding, stop });
    }
}

/// The module a binding names, loaded (from the compiled-code cache when it is there).
async fn load(svc: &Service, binding: &Binding) -> Result<Arc<Module>, String> {
    load_module(svc, &binding.account, &binding.module).await
}

/// The module `digest` of `account`, loaded (from the compiled-code cache when it is there).
async fn load_module(svc: &Service, account: &str, digest: &str) -> Result<Arc<Module>, String> {
    if let Some(loaded) = svc.runtime.loaded(digest) {
        return Ok(loaded);
    }
    let (account, digest) = (account.to_owned(), digest.to_owned());
    let code = svc
        .store
        .read_long(move |tx| tx.module_code(&account, &digest))
        .await
        .map_err(|e| e.to_string())?
        .ok_or("the module is gone")?;
    let runtime = svc.runtime.clone();
    tokio::task::spawn_blocking(move || runtime.load(&code))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())
}

/// The binding of the worker's list now; none if the list is no longer bound here.
async fn binding_now(worker: &Worker) -> Option<Binding> {
    let (domain, kind, name) = (
        worker.domain_id,
        worker.binding.kind,
        worker.binding.name.clone(),
    );
    let read = worker
        .svc
        .store
        .read(move |tx| Ok::<_, Fault>(tx.binding(domain, kind, &name)?));
    read.await.ok().flatten()
}

/// The module bound to the worker's list now; none if the list is no longer bound here.
async fn bound_module(worker: &Worker) -> Option<Arc<Module>> {
    let binding = binding_now(worker).await?;
    if binding.module == worker.binding.module {
        return Some(worker.module.clone());
    }
    load(&worker.svc, &binding).await.ok()
}

/// The labels of `binding`'s metrics: its domain's, then its kind and name.
fn binding_labels(svc: &Service, binding: &Binding) -> Labels {
    let mut labels = svc
        .engine
        .metrics
        .domain_labels(&binding.account, &binding.domain);
    labels.push(("kind", binding.kind.name().to_owned()));
    labels.push(("binding", binding.name.clone()));
    labels
}

/// What every loop of one binding shares.
struct Worker {
    svc: Arc<Service>,
    /// Its tenant, in its domain's region.
    ctx: Ctx,
    domain_id: u64,
    /// Where its guest's calls are counted.
    labels: Labels,
    binding: Binding,
    module: Arc<Module>,
    /// The bindings as they were when the worker was made, to tell whether they changed since.
    seen: Mutex<watch::Receiver<()>>,
    /// Whether its list has been bound to another module since (the supervisor stops it soon).
    replaced: AtomicBool,
    call: Call,
    identity: String,
    /// Runs this binding's decider keeps failing on.
    backoff: backoff::Backoff,
}

impl Worker {
    /// The worker of `binding` (of domain `domain_id`), serving `module` for `tenant` until
    /// `stop` turns true; `seen` is the bindings' version it was made from.
    fn new(
        svc: &Arc<Service>,
        domain_id: u64,
        binding: &Binding,
        module: Arc<Module>,
        (tenant, stop): (Arc<Tenant>, watch::Receiver<bool>),
        seen: watch::Receiver<()>,
    ) -> Worker {
        let label = format!(
            "{} {} {}",
            binding.domain,
            binding.kind.name(),
            binding.name
        );
        Worker {
            svc: svc.clone(),
            call: Call {
                label: label.into(),
                // The tenant's quotas may have shrunk since the binding was made.
                limits: tenant.clamp(binding.limits),
                share: tenant.instances.clone(),
                http_hosts: binding.http_hosts.clone().into(),
                tap: None,
            },
            ctx: Ctx::new(Caller {
                tenant,
                region: binding.region.clone(),
            })
            .until(stop),
            domain_id,
            labels: binding_labels(svc, binding),
            identity: format!("weft:{}", &binding.module[..12]),
            binding: binding.clone(),
            module,
            seen: Mutex::new(seen),
            replaced: AtomicBool::new(false),
            backoff: Default::default(),
        }
    }

    /// Polls and serves tasks until told to stop. A task being served is finished first.
    async fn serve(self: &Arc<Self>, mut stop: watch::Receiver<bool>) {
        while !*stop.borrow() {
            if let Err(fault) = self.serve_one(&mut stop).await {
                tracing::warn!(guest = &*self.call.label, "in-process worker: {fault}");
                tokio::select! {
                    _ = tokio::time::sleep(ERROR_PAUSE) => {}
                    _ = stop.wait_for(|s| *s) => break,
                }
            }
        }
    }

    /// Waits for one task and serves it. The server is busy meanwhile, except while the poll
    /// waits (for time-skipping: a guest running keeps time from jumping).
    async fn serve_one(self: &Arc<Self>, stop: &mut watch::Receiver<bool>) -> Result<(), Fault> {
        let _busy = self.svc.idle.busy();
        match self.binding.kind {
            BindingKind::Decision => decider::serve_one(self, stop).await,
            BindingKind::Activity => activity::serve_one(self, stop).await,
            BindingKind::Function => function::serve_one(self, stop).await,
        }
    }

    /// The module to serve a task just taken with: the worker's own, unless the bindings have
    /// changed since it was made and its list is now bound to another module. A worker's stop
    /// follows a change only after the supervisor has read the bindings, and a task a poll takes
    /// meanwhile (even one scheduled after the bind answered) must run the module bound now.
    async fn module_now(&self) -> Arc<Module> {
        let changed = {
            let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
            let changed = seen.has_changed().unwrap_or(false);
            seen.mark_unchanged();
            changed
        };
        if !changed && !self.replaced.load(Ordering::Relaxed) {
            return self.module.clone();
        }
        match bound_module(self).await {
            Some(bound) if !Arc::ptr_eq(&bound, &self.module) => {
                self.replaced.store(true, Ordering::Relaxed);
                bound
            }
            _ => self.module.clone(),
        }
    }

    /// Runs one call of the guest, timed and counted in the binding's metrics.
    async fn guest<T>(
        &self,
        call: impl Future<Output = Result<T, GuestFailure>>,
    ) -> Result<T, GuestFailure> {
        let started = Instant::now();
        let outcome = call.await;
        let how = match &outcome {
            Ok(_) | Err(GuestFailure::Invalid(_) | GuestFailure::Decider(_)) => {
                GuestOutcome::Answered
            }
            Err(GuestFailure::Trap(_) | GuestFailure::Panic(_)) => GuestOutcome::Trapped,
            Err(GuestFailure::Cpu(_)) => GuestOutcome::Limit("cpu"),
            Err(GuestFailure::Memory(_)) => GuestOutcome::Limit("memory"),
            Err(GuestFailure::StackOverflow) => GuestOutcome::Limit("stack"),
            Err(GuestFailure::Output { .. }) => GuestOutcome::Limit("output"),
        };
        let metrics = &self.svc.engine.metrics;
        metrics
            .own
            .guest_called(&self.labels, started.elapsed(), how);
        if let Err(failure) = &outcome {
            metrics.own.guest_failed(&self.labels, cause(failure));
        }
        outcome
    }

    /// Long-polls with `O` until it answers: a task, or an empty answer once the poll times
    /// out or the worker is told to stop (its context's stop ends the poll, which still
    /// delivers a task claimed for it meanwhile); `None` if the worker was stopped already.
    async fn poll<O: Op>(
        &self,
        input: O::Input,
        stop: &watch::Receiver<bool>,
    ) -> Result<Option<O::Output>, Fault>
    where
        O::Input: Serialize,
    {
        if *stop.borrow() {
            return Ok(None);
        }
        self.call::<O>(input).await.map(Some)
    }

    /// Runs `O` as this binding's domain's account.
    async fn call<O: Op>(&self, input: O::Input) -> Result<O::Output, Fault>
    where
        O::Input: Serialize,
    {
        api::call::<O>(&self.svc, &self.ctx, input).await
    }

    /// This binding's domain.
    fn domain(&self) -> String {
        self.binding.domain.clone()
    }

    /// This binding's task list.
    fn task_list(&self) -> TaskList {
        TaskList {
            name: self.binding.name.clone(),
        }
    }

    /// The span of one task for `execution`: every line logged while it is served, the
    /// guest's own included, names the domain and run, `id` (an activity's or a Lambda
    /// function's) if given, and, for a decision task, the `attempt` its decider is on (the
    /// worker runs it again on a task it failed; SWF itself never hands out an activity task
    /// twice, so an activity's retry is a new task, with its own scheduling).
    fn task_span(&self, execution: &WorkflowExecution, id: Option<&str>) -> tracing::Span {
        let span = tracing::info_span!(
            "task",
            domain = %self.binding.domain,
            workflow_id = %execution.workflow_id,
            run_id = %execution.run_id,
            id = tracing::field::Empty,
            attempt = tracing::field::Empty,
        );
        if let Some(id) = id {
            span.record("id", id);
        }
        span
    }

    /// The binding's call, with a tap that keeps the lines its guest logs for the task.
    fn tapped(&self) -> (Call, LogTap) {
        let tap = LogTap::default();
        let call = Call {
            tap: Some(tap.clone()),
            ..self.call.clone()
        };
        (call, tap)
    }

    /// Keeps `lines`, logged by the guest on task `task` of `execution`, as the run's latest.
    fn keep_lines(&self, execution: &WorkflowExecution, task: &str, lines: &[GuestLine]) {
        if lines.is_empty() {
            return;
        }
        let at = self.svc.clock.now();
        let key = (
            self.domain_id,
            execution.workflow_id.to_string(),
            execution.run_id.to_string(),
        );
        self.svc.run_logs.keep(
            key,
            lines.iter().map(|line| RunLogLine {
                at,
                level: line.level.to_owned(),
                kind: self.binding.kind,
                binding: self.binding.name.clone(),
                task: task.to_owned(),
                message: line.message.clone(),
            }),
        );
    }

    /// Logs a task the guest did not finish and keeps it in the binding's failure log, with
    /// what the guest logged at `error` meanwhile (`lines`) as its details.
    async fn failed(
        &self,
        execution: &WorkflowExecution,
        task: String,
        reason: String,
        lines: &[GuestLine],
    ) {
        tracing::warn!(guest = &*self.call.label, task, "guest failed: {reason}");
        let record = GuestFailureRecord {
            at: self.svc.clock.now(),
            workflow_id: execution.workflow_id.to_string(),
            run_id: execution.run_id.to_string(),
            task,
            reason,
            details: failure_details(lines),
        };
        let (domain, kind, name) = (self.domain_id, self.binding.kind, self.binding.name.clone());
        let written = self
            .svc
            .store
            .write(
                // A binding removed meanwhile keeps no log.
                move |tx| tx.binding(domain, kind, &name).map(|b| (b.is_some(), name)),
                move |tx, (bound, name)| match bound {
                    true => tx.record_guest_failure(domain, kind, &name, &record),
                    false => Ok(()),
                },
            )
            .await;
        if let Err(fault) = written {
            tracing::error!("recording a guest failure: {fault}");
        }
    }
}

/// The most bytes of a failure's details kept: its end, where a traceback names the failing
/// line.
const MAX_DETAILS: usize = 8 << 10;

/// What a failing guest logged at `error`: an SDK's traceback or stack. A Rust panic's own line
/// is left out, since the failure's reason already holds it.
fn failure_details(lines: &[GuestLine]) -> Option<String> {
    let errors: Vec<&str> = lines
        .iter()
        .filter(|l| l.level == "error" && !l.message.starts_with("panicked at "))
        .map(|l| l.message.as_str())
        .collect();
    if errors.is_empty() {
        return None;
    }
    let details = errors.join("\n");
    let mut start = details.len().saturating_sub(MAX_DETAILS);
    while !details.is_char_boundary(start) {
        start += 1;
    }
    Some(details[start..].to_owned())
}

/// The cause of a guest's failure, as `weft_guest_failures` counts it.
fn cause(failure: &GuestFailure) -> &'static str {
    match failure {
        // Every SDK's replay says so in these words.
        GuestFailure::Decider(message) if message.starts_with("nondeterminism") => "nondeterminism",
        GuestFailure::Decider(_) => "error",
        GuestFailure::Panic(_) => "panic",
        GuestFailure::Trap(_) => "trap",
        GuestFailure::Cpu(_) => "cpu",
        GuestFailure::Memory(_) => "memory",
        GuestFailure::StackOverflow => "stack",
        GuestFailure::Output { .. } => "output",
        GuestFailure::Invalid(_) => "invalid",
    }
}

/// The failure of a guest whose answer the service refused with `fault`.
fn refused(fault: &Fault) -> GuestFailure {
    GuestFailure::Invalid(format!("{}: {fault}", fault.code()))
}
