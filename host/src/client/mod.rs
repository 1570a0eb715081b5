//! A client of a Weft server, as the `weft` command uses it: Weft's `/v1` API (modules and
//! bindings in `wasm.rs`, runs, replays and clocks here), SWF's own operations in [`swf`].
//!
//! One HTTP/1.1 request per call, on a fresh connection, over TCP or TLS (`transport.rs`).
//! Requests and answers of `/v1` are the very types the server reads and writes ([`Bind`],
//! [`ModuleRecord`], [`Binding`], [`GuestFailureRecord`]); [`show`] renders records as short
//! lines for people. Requests are signed with SigV4 when the client has credentials
//! ([`Client::with_credentials`]; [`profile`] reads them as AWS clients do), as a server with
//! tenants requires.
//! Without them, it sends an `Authorization` header that carries only the credential scope, whose
//! region is what scopes every name on an open server.
//!
//! ```no_run
//! # async fn example() -> Result<(), weft_host::client::ClientError> {
//! use weft_host::client::{Bind, BindingKind, Client};
//!
//! let client = Client::new("http://127.0.0.1:8080", "us-east-1")?;
//! let module = client.upload_module(std::fs::read("decider.wasm").unwrap()).await?;
//! client
//!     .bind("orders", BindingKind::Decision, "deciders", &Bind::module(&module.digest))
//!     .await?;
//! # Ok(())
//! # }
//! ```

mod clock;
pub mod profile;
mod schedules;
pub use self::schedules::check_schedule;
pub mod swf;
mod transfer;
mod wasm;

pub use self::transfer::RunSelection;
mod transport;

use crate::model::routes;
use std::path::Path;
use std::time::Duration;

use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HOST};
use hyper::{Method, Request};
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::oneshot;

use self::transport::{Answer, Transport};

pub use crate::clock::Timestamp;
pub use crate::model::{
    Backfill, Overlap, ScheduleAction, ScheduleDefinition, ScheduleDescription, ScheduleList,
    ScheduleNote, ScheduleOutcome, ScheduleSpec, ScheduleState, ScheduledRun, StartAction,
};
pub use crate::model::{
    Batch, BatchAction, BatchFailure, BatchJob, BatchJobList, BatchJobRequest, BatchJobState,
    BatchOutcome, Bind, BindLimits as Limits, Binding, BindingKind, BindingList, BindingRef,
    BindingVersion, ClockAdvance, ClockState, Divergence, ExportedHistory, ExportedRun, Failing,
    FailureList, Fairness, GuestFailureRecord, ImportAnswer, KeyInfo, ListLimitReport,
    ListLimitRequest, ListPauseReport, ListPauseRequest, ModuleLabel, ModuleList, ModuleRecord,
    NamedPoint, Pause, PauseReport, PauseRequest, Pin, PinnedDecider, Replay, ReplayReport,
    ResetPoint, ResetReport, ResetRequest, RunCount, RunFailure, RunFailureList, RunFilter,
    RunImport, RunList, RunLogLine, RunLogList, RunQuery, RunReplay, RunState, RunSummary,
    RunUpgrade, TaskListInfo, TaskListList, TypeRef, UpgradePolicy, UpgradeQuery, UpgradeReport,
    export_file_name,
};
pub use crate::runtime::{GuestLimits, World};
use crate::tenancy::sigv4;

/// How long a whole call may take: uploading compiles the module before answering.
const CALL_TIMEOUT: Duration = Duration::from_secs(300);

/// The digest a server names a module's bytes by (their sha256, in lowercase hex): what
/// `upload_module` answers for them, known before uploading.
pub fn module_digest(code: &[u8]) -> String {
    crate::runtime::Runtime::digest(code)
}

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The endpoint is not an `http://` or `https://` URL of a host, or its CA file is unusable.
    #[error("invalid endpoint {endpoint:?}: {reason}")]
    Endpoint {
        /// The endpoint as given.
        endpoint: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The region is not a region name.
    #[error("invalid region {0:?}: lowercase letters, digits and dashes, such as us-east-1")]
    Region(String),
    /// No server answers at the endpoint.
    #[error("cannot reach weft at {endpoint}: {reason}; is `weft serve` running there?")]
    Connect {
        /// The endpoint.
        endpoint: String,
        /// Why, as the system says it.
        reason: String,
    },
    /// A server answers, but the TLS handshake with it failed: most often its certificate is
    /// signed by a CA the client was not given.
    #[error(
        "cannot talk TLS with {endpoint}: {reason}; if the server's certificate is self-signed, \
         trust its CA with --ca-file FILE or AWS_CA_BUNDLE (`weft serve` prints the file)"
    )]
    Tls {
        /// The endpoint.
        endpoint: String,
        /// Why, as the TLS library says it.
        reason: String,
    },
    /// The exchange broke off, or the answer is not what the API sends.
    #[error("talking to {endpoint}: {reason}")]
    Protocol {
        /// The endpoint.
        endpoint: String,
        /// What went wrong.
        reason: String,
    },
    /// The server refused the request.
    #[error("{message} ({code})")]
    Refused {
        /// The HTTP status.
        status: u16,
        /// The error code, such as `UnknownResourceFault`.
        code: String,
        /// The server's message.
        message: String,
    },
}

/// Checks a registration's input (`operation` is `RegisterDomain`, `RegisterWorkflowType` or
/// `RegisterActivityType`) as the server would, without one: the model's shapes and SWF's rules;
/// the fault's message if it would be refused.
pub fn check_registration(operation: &str, input: Value) -> Result<(), String> {
    crate::api::check_registration(operation, input).map_err(|fault| fault.client_message())
}

/// A client of one server, acting in one region.
#[derive(Clone, Debug)]
pub struct Client {
    transport: Transport,
    region: String,
    /// The access key id and secret to sign with; none on an open server.
    credentials: Option<(String, String)>,
}

impl Client {
    /// A client of the server at `endpoint` (`http://host[:port]` or `https://host[:port]`),
    /// acting in `region`.
    pub fn new(endpoint: &str, region: &str) -> Result<Client, ClientError> {
        Client::trusting(endpoint, region, None)
    }

    /// Like [`Client::new`], also trusting the CA certificates in the PEM file `ca_file` for an
    /// `https://` endpoint.
    pub fn trusting(
        endpoint: &str,
        region: &str,
        ca_file: Option<&Path>,
    ) -> Result<Client, ClientError> {
        let transport = Transport::new(endpoint, ca_file)?;
        if !sigv4::is_region(region) {
            return Err(ClientError::Region(region.to_owned()));
        }
        Ok(Client {
            transport,
            region: region.to_owned(),
            credentials: None,
        })
    }

    /// The same client, signing its requests with this access key pair.
    pub fn with_credentials(mut self, access_key_id: &str, secret: &str) -> Client {
        self.credentials = Some((access_key_id.to_owned(), secret.to_owned()));
        self
    }

    /// The `X-Amz-Date` and `Authorization` headers of a request, signed if the client has
    /// credentials.
    fn authorization(
        &self,
        request: &hyper::http::request::Builder,
        body: &[u8],
    ) -> (String, String) {
        let now = std::time::SystemTime::now();
        let amz_date = sigv4::amz_date(now);
        let date = &amz_date[..8];
        let Some((key, secret)) = &self.credentials else {
            let scope = sigv4::scope(date, &self.region, sigv4::SERVICE);
            let unsigned = format!(
                "{} Credential=weft/{scope}, SignedHeaders=host, Signature=0",
                sigv4::ALGORITHM
            );
            return (amz_date, unsigned);
        };
        let empty = hyper::HeaderMap::new();
        let mut headers = request.headers_ref().unwrap_or(&empty).clone();
        headers.insert(
            "x-amz-date",
            amz_date.parse().expect("a date is a header value"),
        );
        let signer = sigv4::Signer {
            key,
            secret,
            region: &self.region,
        };
        let method = request.method_ref().map_or("GET", |m| m.as_str());
        let uri = request.uri_ref().cloned().unwrap_or_default();
        let authorization = signer.authorization(method, &uri, &headers, body, &amz_date);
        (amz_date, authorization)
    }

    /// The latest failures of the domain's bound guests on one run, oldest first.
    pub async fn run_failures(
        &self,
        domain: &str,
        workflow_id: &str,
        run_id: &str,
    ) -> Result<Vec<RunFailure>, ClientError> {
        let path = routes::fill(routes::RUN_FAILURES, &[domain, workflow_id, run_id]);
        let list: RunFailureList = self.call(Method::GET, path, None).await?;
        Ok(list.failures)
    }

    /// A page of the domain's runs, open and closed, that `query` picks.
    pub async fn list_runs(&self, domain: &str, query: &RunQuery) -> Result<RunList, ClientError> {
        let query = serde_urlencoded::to_string(query).map_err(|e| self.protocol(e))?;
        let path = format!("{}?{query}", routes::fill(routes::RUNS, &[domain]));
        self.call(Method::GET, path, None).await
    }

    /// The run `run_id` of `workflow_id` in `domain`, as the listing shows it.
    pub async fn run_summary(
        &self,
        domain: &str,
        workflow_id: &str,
        run_id: &str,
    ) -> Result<RunSummary, ClientError> {
        let path = routes::fill(routes::RUN, &[domain, workflow_id, run_id]);
        self.call(Method::GET, path, None).await
    }

    /// How many of the domain's runs `filter` picks.
    pub async fn count_runs(&self, domain: &str, filter: &RunFilter) -> Result<u64, ClientError> {
        let query = serde_urlencoded::to_string(filter).map_err(|e| self.protocol(e))?;
        let path = format!("{}?{query}", routes::fill(routes::RUNS_COUNT, &[domain]));
        let count: RunCount = self.call(Method::GET, path, None).await?;
        Ok(count.count)
    }

    /// Resets a run of `workflow_id` in `domain`: a new run carries its events up to the
    /// decision task `reset.to` names, which is decided again.
    pub async fn reset(
        &self,
        domain: &str,
        workflow_id: &str,
        reset: &ResetRequest,
    ) -> Result<ResetReport, ClientError> {
        let body = serde_json::to_vec(reset).map_err(|e| self.protocol(e))?;
        let path = routes::fill(routes::RESET, &[domain, workflow_id]);
        self.call(Method::POST, path, Some(("application/json", body)))
            .await
    }

    /// Pauses the open run of `workflow_id` that `request` names: its queued tasks are held
    /// until it resumes.
    pub async fn pause(
        &self,
        domain: &str,
        workflow_id: &str,
        request: &PauseRequest,
    ) -> Result<PauseReport, ClientError> {
        self.pause_or_resume(routes::PAUSE, domain, workflow_id, request)
            .await
    }

    /// Resumes the paused run of `workflow_id` that `request` names.
    pub async fn resume(
        &self,
        domain: &str,
        workflow_id: &str,
        request: &PauseRequest,
    ) -> Result<PauseReport, ClientError> {
        self.pause_or_resume(routes::RESUME, domain, workflow_id, request)
            .await
    }

    async fn pause_or_resume(
        &self,
        route: &str,
        domain: &str,
        workflow_id: &str,
        request: &PauseRequest,
    ) -> Result<PauseReport, ClientError> {
        let path = routes::fill(route, &[domain, workflow_id]);
        self.post_json(path, request).await
    }

    /// POSTs `body` as JSON to `path` and reads the answer.
    async fn post_json<T: DeserializeOwned>(
        &self,
        path: String,
        body: &impl serde::Serialize,
    ) -> Result<T, ClientError> {
        let body = serde_json::to_vec(body).map_err(|e| self.protocol(e))?;
        self.call(Method::POST, path, Some(("application/json", body)))
            .await
    }

    /// Pauses the task list `name` of `kind`: none of its tasks is handed out until it resumes.
    pub async fn pause_task_list(
        &self,
        domain: &str,
        (kind, name): (BindingKind, &str),
        request: &ListPauseRequest,
    ) -> Result<ListPauseReport, ClientError> {
        let path = routes::fill(routes::TASK_LIST_PAUSE, &[domain, kind.name(), name]);
        self.post_json(path, request).await
    }

    /// Resumes the paused task list `name` of `kind`.
    pub async fn resume_task_list(
        &self,
        domain: &str,
        (kind, name): (BindingKind, &str),
        request: &ListPauseRequest,
    ) -> Result<ListPauseReport, ClientError> {
        let path = routes::fill(routes::TASK_LIST_RESUME, &[domain, kind.name(), name]);
        self.post_json(path, request).await
    }

    /// Sets the rate (tasks handed out per second) and the concurrency cap (tasks started and
    /// not finished) of the task list `name` of `kind`, across all nodes, each as `request`
    /// gives it.
    pub async fn limit_task_list(
        &self,
        domain: &str,
        (kind, name): (BindingKind, &str),
        request: &ListLimitRequest,
    ) -> Result<ListLimitReport, ClientError> {
        let path = routes::fill(routes::TASK_LIST_LIMIT, &[domain, kind.name(), name]);
        self.post_json(path, request).await
    }

    /// Makes a batch job: the server acts on the open runs `request` picks, at its rate.
    pub async fn create_batch_job(
        &self,
        domain: &str,
        request: &BatchJobRequest,
    ) -> Result<BatchJob, ClientError> {
        self.post_json(routes::fill(routes::BATCHES, &[domain]), request)
            .await
    }

    /// The domain's batch jobs, newest first.
    pub async fn batch_jobs(&self, domain: &str) -> Result<Vec<BatchJob>, ClientError> {
        let path = routes::fill(routes::BATCHES, &[domain]);
        let list: BatchJobList = self.call(Method::GET, path, None).await?;
        Ok(list.jobs)
    }

    /// The batch job `id`: its state and progress.
    pub async fn batch_job(&self, domain: &str, id: &str) -> Result<BatchJob, ClientError> {
        let path = routes::fill(routes::BATCH, &[domain, id]);
        self.call(Method::GET, path, None).await
    }

    /// Cancels the batch job `id`: the runs it has not acted on are left as they are.
    pub async fn cancel_batch_job(&self, domain: &str, id: &str) -> Result<BatchJob, ClientError> {
        let path = routes::fill(routes::BATCH_CANCEL, &[domain, id]);
        self.post_json(path, &serde_json::json!({})).await
    }

    /// Applies `batch.action` to every open run of the domain that `batch.filter` picks.
    pub async fn batch(&self, domain: &str, batch: &Batch) -> Result<BatchOutcome, ClientError> {
        let body = serde_json::to_vec(batch).map_err(|e| self.protocol(e))?;
        let path = routes::fill(routes::RUNS_BATCH, &[domain]);
        self.call(Method::POST, path, Some(("application/json", body)))
            .await
    }

    /// The latest lines the domain's bound guests logged for one run on the node answering,
    /// oldest first.
    pub async fn run_logs(
        &self,
        domain: &str,
        workflow_id: &str,
        run_id: &str,
    ) -> Result<Vec<RunLogLine>, ClientError> {
        let path = routes::fill(routes::RUN_LOGS, &[domain, workflow_id, run_id]);
        let list: RunLogList = self.call(Method::GET, path, None).await?;
        Ok(list.lines)
    }

    /// The domain's task lists with tasks waiting, polls waiting or a binding.
    pub async fn task_lists(&self, domain: &str) -> Result<Vec<TaskListInfo>, ClientError> {
        let path = routes::fill(routes::TASK_LISTS, &[domain]);
        let list: TaskListList = self.call(Method::GET, path, None).await?;
        Ok(list.task_lists)
    }

    /// Replays the decider `replay.module` (an uploaded module's digest) over the newest runs
    /// of `domain` that `replay` picks; answers each run's replay.
    pub async fn replay(&self, domain: &str, replay: &Replay) -> Result<ReplayReport, ClientError> {
        let body = serde_json::to_vec(replay).map_err(|e| self.protocol(e))?;
        let path = routes::fill(routes::REPLAY, &[domain]);
        self.call(Method::POST, path, Some(("application/json", body)))
            .await
    }

    /// Sends `method path` with `body` (its content type and bytes) and answers a success's
    /// JSON read as `T`, or the server's refusal.
    async fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        path: String,
        body: Option<(&'static str, Vec<u8>)>,
    ) -> Result<T, ClientError> {
        self.call_with(Exchange::new(method, path), body).await
    }

    /// Like [`Client::call`], with more to say about the request.
    async fn call_with<T: DeserializeOwned>(
        &self,
        exchange: Exchange,
        body: Option<(&'static str, Vec<u8>)>,
    ) -> Result<T, ClientError> {
        tokio::time::timeout(CALL_TIMEOUT, self.exchange(exchange, body))
            .await
            .unwrap_or_else(|_| Err(self.protocol(format!("no answer in {CALL_TIMEOUT:?}"))))
    }

    async fn exchange<T: DeserializeOwned>(
        &self,
        exchange: Exchange,
        body: Option<(&'static str, Vec<u8>)>,
    ) -> Result<T, ClientError> {
        let mut request = Request::builder()
            .method(exchange.method)
            .uri(exchange.path)
            .header(HOST, &self.transport.authority);
        if let Some(target) = exchange.target {
            request = request.header("x-amz-target", target);
        }
        let body = match body {
            Some((content_type, bytes)) => {
                request = request.header(CONTENT_TYPE, content_type);
                bytes
            }
            None => Vec::new(),
        };
        if self.credentials.is_some() {
            // Declaring the body's hash (signed with the rest) lets the server check the
            // signature before the body arrives, and so accept a large upload at full length.
            request = request.header("x-amz-content-sha256", sigv4::sha256_hex(&body));
        }
        let (amz_date, authorization) = self.authorization(&request, &body);
        let request = request
            .header("x-amz-date", amz_date)
            .header(AUTHORIZATION, authorization);
        let answer = self.transport.send(request, body, exchange.sent).await?;
        if answer.status.is_success() {
            // SWF's operations without output answer an empty body.
            let body = match &answer.body[..] {
                b"" => b"{}",
                body => body,
            };
            return serde_json::from_slice(body)
                .map_err(|e| self.protocol(format!("the answer is not what the API sends: {e}")));
        }
        Err(refusal(&answer))
    }

    fn protocol(&self, reason: impl std::fmt::Display) -> ClientError {
        self.transport.protocol(reason)
    }
}

/// The server's refusal: its error code (from the body's `__type`, else the
/// `x-amzn-ErrorType` header) and message.
fn refusal(answer: &Answer) -> ClientError {
    let json: Option<Value> = serde_json::from_slice(&answer.body).ok();
    let field = |name: &str| {
        json.as_ref()
            .and_then(|j| j.get(name).or_else(|| j.get("Message")))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let error_type = answer
        .headers
        .get("x-amzn-errortype")
        .and_then(|v| v.to_str().ok())
        .map(|t| t.split(':').next().unwrap_or(t).to_owned());
    let code = json
        .as_ref()
        .and_then(|j| j.get("__type"))
        .and_then(Value::as_str)
        .map(|t| t.rsplit('#').next().unwrap_or_default().to_owned())
        .or(error_type)
        .unwrap_or_else(|| format!("HTTP {}", answer.status.as_u16()));
    let message = field("message").unwrap_or_else(|| {
        format!(
            "the server answered {} (is it a weft server?)",
            answer.status
        )
    });
    ClientError::Refused {
        status: answer.status.as_u16(),
        code,
        message,
    }
}

/// A request's method, path and, for SWF, its operation; and who hears that the body is sent.
struct Exchange {
    method: Method,
    path: String,
    /// The `X-Amz-Target` header naming an SWF operation.
    target: Option<String>,
    sent: Option<oneshot::Sender<()>>,
}

impl Exchange {
    fn new(method: Method, path: String) -> Exchange {
        Exchange {
            method,
            path,
            target: None,
            sent: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::wasm::binding_path;
    use super::*;

    #[test]
    fn binding_paths_encode_their_segments() {
        assert_eq!(
            binding_path("d/1", BindingKind::Activity, "x y"),
            "/v1/domains/d%2F1/bindings/activity/x%20y"
        );
    }

    #[test]
    fn signs_what_a_server_with_tenants_verifies() {
        let secret = "0123456789abcdef";
        let client = Client::new("http://localhost:9", "eu-west-2")
            .unwrap()
            .with_credentials("AKIDACME", secret);
        let signed = |body: &[u8]| {
            let builder = Request::builder()
                .method(Method::PUT)
                .uri("/v1/domains/a%20b/bindings/activity/x?y=1")
                .header(HOST, &client.transport.authority)
                .header(CONTENT_TYPE, "application/json");
            let (date, authorization) = client.authorization(&builder, body);
            let request = builder
                .header("x-amz-date", date)
                .header(AUTHORIZATION, authorization)
                .body(())
                .unwrap();
            request.into_parts().0
        };
        let tenants = crate::tenancy::one_tenant("AKIDACME", secret);
        let now = std::time::SystemTime::now();
        let caller = tenants
            .authenticate(&signed(b"{}"), b"{}", now)
            .ok()
            .unwrap();
        assert_eq!(caller.region, "eu-west-2");
        let tampered = tenants.authenticate(&signed(b"{}"), b"{\"x\":1}", now);
        assert_eq!(tampered.err().unwrap().code(), "InvalidSignatureException");
    }

    #[test]
    fn endpoints_and_regions_are_checked() {
        let client = Client::new("http://localhost", "eu-west-2").unwrap();
        assert_eq!(client.transport.authority, "localhost:80");
        let (_, unsigned) = client.authorization(&Request::builder(), b"");
        assert!(
            unsigned.contains("/eu-west-2/swf/aws4_request"),
            "{unsigned}"
        );
        let client = Client::new("http://127.0.0.1:9000/", "us-east-1").unwrap();
        assert_eq!(client.transport.authority, "127.0.0.1:9000");
        let client = Client::new("https://swf.example.com", "us-east-1").unwrap();
        assert_eq!(client.transport.authority, "swf.example.com:443");
        for bad in ["127.0.0.1:9000", "ftp://x", "http://x/v1", "", "http://"] {
            assert!(
                matches!(
                    Client::new(bad, "us-east-1"),
                    Err(ClientError::Endpoint { .. })
                ),
                "{bad}"
            );
        }
        assert!(matches!(
            Client::new("http://x", "EU"),
            Err(ClientError::Region(_))
        ));
    }

    #[test]
    fn bind_bodies_leave_out_what_is_not_set() {
        let json = serde_json::to_value(Bind::module("abc")).unwrap();
        assert_eq!(json, serde_json::json!({"module": "abc"}));
        let bind = Bind {
            concurrency: Some(2),
            limits: Limits {
                cpu_ms: Some(5),
                ..Limits::default()
            },
            http_hosts: vec!["127.0.0.1:8080".into()],
            ..Bind::module("abc")
        };
        assert_eq!(
            serde_json::to_value(bind).unwrap(),
            serde_json::json!({"module": "abc", "concurrency": 2, "limits": {"cpuMs": 5},
                "httpHosts": ["127.0.0.1:8080"]})
        );
    }
}
