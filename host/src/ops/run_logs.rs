//! The latest lines each run's bound guests logged on this node (`GET /v1/domains/{domain}/
//! workflows/{workflowId}/runs/{runId}/logs`): what the console shows beside a run's failures.
//!
//! They are kept in memory, not stored: a node keeps those its own workers wrote, the last
//! [`MAX_LINES`] (and at most [`MAX_BYTES`]) of each of the last [`MAX_RUNS`] runs they served.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use crate::fault::Fault;
use crate::model::{RunId, RunLogLine, WorkflowId};

use super::executions::existing_run;
use super::{Ctx, Service};

/// Lines kept per run.
const MAX_LINES: usize = 100;
/// Bytes of messages kept per run.
const MAX_BYTES: usize = 32 << 10;
/// Runs whose lines are kept; the one written to longest ago goes first.
const MAX_RUNS: usize = 500;

/// A run: its domain's id, workflow id and run id.
type RunKey = (u64, String, String);

/// The latest guest log lines of the runs this node's workers served.
#[derive(Debug, Default)]
pub(crate) struct RunLogs(Mutex<Runs>);

#[derive(Debug, Default)]
struct Runs {
    /// Each run's lines, with when it was last written to (a count of writes).
    runs: HashMap<RunKey, (u64, VecDeque<RunLogLine>)>,
    writes: u64,
}

impl RunLogs {
    /// Keeps `lines` as the latest of run `key`.
    pub(crate) fn keep(&self, key: RunKey, lines: impl IntoIterator<Item = RunLogLine>) {
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        all.writes += 1;
        let writes = all.writes;
        if !all.runs.contains_key(&key) && all.runs.len() >= MAX_RUNS {
            let oldest = all
                .runs
                .iter()
                .min_by_key(|(_, (w, _))| *w)
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                all.runs.remove(&oldest);
            }
        }
        let (written, kept) = all.runs.entry(key).or_default();
        *written = writes;
        kept.extend(lines);
        let mut bytes: usize = kept.iter().map(|l| l.message.len()).sum();
        while kept.len() > MAX_LINES || bytes > MAX_BYTES {
            let Some(dropped) = kept.pop_front() else {
                break;
            };
            bytes -= dropped.message.len();
        }
    }

    /// The lines kept of run `key`, oldest first.
    fn lines(&self, key: &RunKey) -> Vec<RunLogLine> {
        let all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        all.runs
            .get(key)
            .map(|(_, lines)| lines.iter().cloned().collect())
            .unwrap_or_default()
    }
}

/// The latest lines the domain's bound guests logged on this node for the run
/// `workflow_id`/`run_id`, oldest first: `UnknownResourceFault` if there is no such run.
pub(crate) async fn run_logs(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    workflow_id: WorkflowId,
    run_id: RunId,
) -> Result<Vec<RunLogLine>, Fault> {
    let scope = ctx.scope.clone();
    let (wf, run) = (workflow_id.to_string(), run_id.to_string());
    let domain_id = svc
        .store
        .read(move |tx| existing_run(tx, &scope, &domain, &workflow_id, &run_id).map(|(d, _)| d))
        .await?;
    Ok(svc.run_logs.lines(&(domain_id, wf, run)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Timestamp;
    use crate::model::BindingKind;

    fn line(message: &str) -> RunLogLine {
        RunLogLine {
            at: Timestamp::from_millis(0),
            level: "info".into(),
            kind: BindingKind::Activity,
            binding: "workers".into(),
            task: "activity 1".into(),
            message: message.into(),
        }
    }

    fn key(run: usize) -> RunKey {
        (1, "w".into(), format!("r{run}"))
    }

    #[test]
    fn a_run_keeps_its_latest_lines_within_its_count_and_bytes() {
        let logs = RunLogs::default();
        logs.keep(key(0), (0..MAX_LINES + 5).map(|i| line(&i.to_string())));
        let kept = logs.lines(&key(0));
        assert_eq!(kept.len(), MAX_LINES);
        assert_eq!(kept[0].message, "5", "the oldest went first");
        logs.keep(key(0), [line(&"x".repeat(MAX_BYTES))]);
        assert_eq!(
            logs.lines(&key(0)).len(),
            1,
            "a long line leaves room for itself only"
        );
        assert!(logs.lines(&key(1)).is_empty());
    }

    #[test]
    fn the_run_written_to_longest_ago_is_forgotten_first() {
        let logs = RunLogs::default();
        for run in 0..MAX_RUNS {
            logs.keep(key(run), [line("a")]);
        }
        logs.keep(key(0), [line("b")]);
        logs.keep(key(MAX_RUNS), [line("c")]);
        assert_eq!(logs.lines(&key(0)).len(), 2, "written to lately: kept");
        assert!(
            logs.lines(&key(1)).is_empty(),
            "written to longest ago: forgotten"
        );
        assert_eq!(logs.lines(&key(MAX_RUNS)).len(), 1);
    }
}
