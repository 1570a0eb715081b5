//! For benchmarks only (`tests/benches/wasm.rs`), not a stable API: one guest call as an
//! in-process worker makes it, without the service around it, so that what a task pays for Wasm
//! can be measured apart from the SWF work.
//!
//! A [`Probe`] owns a runtime of its own (engine, instance pool, epoch ticker) with one module
//! loaded. Each call takes a fresh store from the pool, instantiates the pre-instantiated
//! component, makes the one call and drops the store, exactly as the in-process workers do.
//!
//! ```no_run
//! # async fn example(code: &[u8], task: &serde_json::Value) -> Result<(), String> {
//! let probe = weft_host::bench::Probe::new(code)?;
//! let response = probe.decide_once(task).await?;
//! # Ok(())
//! # }
//! ```

use std::sync::Arc;

use serde_json::Value;

use crate::runtime::{Call, GuestLimits, Heartbeat, Module, Runtime, tasks, types};

pub use crate::runtime::DecidePhases;

/// A module loaded in a runtime of its own, called with the default limits.
pub struct Probe {
    runtime: Runtime,
    module: Arc<Module>,
    call: Call,
    /// Answers "go on" at once: the activity worker's heartbeat.
    heartbeat: Heartbeat,
}

impl Probe {
    /// Compiles `code` (a component of any of the three worlds) with Cranelift, whatever its
    /// size, and pre-instantiates it. Takes tens of milliseconds to seconds: call it off the
    /// async threads.
    pub fn new(code: &[u8]) -> Result<Probe, String> {
        let runtime = Runtime::new(None)?;
        let module = runtime.load_optimized(code).map_err(|e| e.to_string())?;
        Ok(Probe {
            runtime,
            module,
            call: Call {
                label: "bench".into(),
                limits: GuestLimits::default(),
                share: Arc::new(tokio::sync::Semaphore::new(
                    crate::runtime::POOL_SIZE as usize,
                )),
                http_hosts: Arc::from([]),
                tap: None,
            },
            heartbeat: Arc::new(|_| Box::pin(async { false })),
        })
    }

    /// Runs the decider on `task`, a decision task in wire JSON (`PollForDecisionTask`'s
    /// answer), and answers its decision response in wire JSON.
    pub async fn decide_once(&self, task: &Value) -> Result<Value, String> {
        self.decide_phases(task).await.map(|(response, _)| response)
    }

    /// [`Probe::decide_once`], and where its time went.
    pub async fn decide_phases(&self, task: &Value) -> Result<(Value, DecidePhases), String> {
        let mut phases = DecidePhases::default();
        let response = self
            .runtime
            .decide_timed(&self.module, &self.call, task, &mut phases)
            .await
            .map_err(|e| e.to_string())?;
        Ok((response, phases))
    }

    /// Runs the activity worker on a task with this input, as the in-process worker builds it
    /// from the polled task, and answers the result it completed with; any other outcome is an
    /// error.
    pub async fn run_once(&self, input: Option<&str>) -> Result<Option<String>, String> {
        let task = tasks::ActivityTask {
            activity_id: "bench".into(),
            activity_type: types::ActivityType {
                name: "bench".into(),
                version: "1".into(),
            },
            workflow_execution: types::WorkflowExecution {
                workflow_id: "bench".into(),
                run_id: "bench".into(),
            },
            input: input.map(str::to_owned),
            started_event_id: 6,
        };
        let outcome = self
            .runtime
            .run(&self.module, &self.call, &task, self.heartbeat.clone())
            .await
            .map_err(|e| e.to_string())?;
        match outcome {
            tasks::ActivityOutcome::Completed(result) => Ok(result),
            other => Err(format!("the activity did not complete: {other:?}")),
        }
    }
}

/// A signed SWF request and a server's tenants that know its key: what admitting one request
/// costs in signature checking.
pub struct SignedRequest {
    tenants: crate::tenancy::Tenants,
    parts: axum::http::request::Parts,
    body: Vec<u8>,
}

impl SignedRequest {
    /// A StartWorkflowExecution-like request with a body of `body_len` bytes, signed now as
    /// botocore signs.
    pub fn new(body_len: usize) -> SignedRequest {
        use crate::tenancy::sigv4;
        let secret = "bench-secret-0123456789";
        let mut config = crate::Config::new("/nowhere");
        config.tenants = vec![crate::TenantConfig {
            name: "bench".into(),
            account_id: "111111111111".into(),
            keys: vec![crate::AccessKey {
                id: "AKIDBENCH".into(),
                secret: secret.into(),
            }],
            domains: vec!["*".into()],
            quotas: Default::default(),
            http_hosts: Vec::new(),
        }];
        let tenants = crate::tenancy::Tenants::new(&config).expect("a workable tenant");
        let body = vec![b' '; body_len];
        let amz = sigv4::amz_date(std::time::SystemTime::now());
        let mut request = axum::http::Request::post("/")
            .header("host", "127.0.0.1:8080")
            .header("content-type", "application/x-amz-json-1.0")
            .header("x-amz-date", &amz)
            .header(
                "x-amz-target",
                "SimpleWorkflowService.StartWorkflowExecution",
            )
            .body(())
            .expect("a request");
        let signer = sigv4::Signer {
            key: "AKIDBENCH",
            secret,
            region: "us-east-1",
        };
        let authorization =
            signer.authorization("POST", request.uri(), request.headers(), &body, &amz);
        request.headers_mut().insert(
            "authorization",
            authorization.parse().expect("a header value"),
        );
        SignedRequest {
            tenants,
            parts: request.into_parts().0,
            body,
        }
    }

    /// Checks the signature as the server does; whether it holds.
    pub fn verify(&self) -> bool {
        self.tenants
            .authenticate(&self.parts, &self.body, std::time::SystemTime::now())
            .is_ok()
    }
}
