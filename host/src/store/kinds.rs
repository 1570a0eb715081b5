//! The small enums the store's interface speaks: counters, signals, listings and deadlines. Their numbers are stored (in keys and task tokens), so none is ever renumbered.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use crate::clock::Timestamp;
use crate::model::{CloseStatus, Kind, Run, RunFilter, Scope, TaskKind};

use super::seam::Page;

/// A count a domain keeps for a limit.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Counter {
    /// Registered plus deprecated types of a kind.
    Types(Kind),
    /// Open runs.
    OpenRuns,
}

impl Counter {
    /// Every counter a domain keeps.
    pub(crate) const ALL: [Counter; 3] = [
        Counter::Types(Kind::Workflow),
        Counter::Types(Kind::Activity),
        Counter::OpenRuns,
    ];

    /// The counter's part of the key. Stored: never renumber.
    pub(super) fn key(self) -> u8 {
        match self {
            Counter::Types(Kind::Workflow) => 0,
            Counter::Types(Kind::Activity) => 1,
            Counter::OpenRuns => 2,
        }
    }
}

/// What another process sharing the database committed that this one may act on sooner than
/// its periodic look would. Never needed for correctness: see `store::seam`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Signal {
    /// Tasks were queued on a list: this process's pollers there may claim them.
    Queued {
        domain: u64,
        kind: TaskKind,
        list: String,
    },
    /// Deadlines were set, the earliest at this time if told: it may be earlier than the one
    /// the timer loop sleeps towards.
    Deadline(Option<Timestamp>),
    /// Bindings changed: the in-process workers' supervisor looks again.
    Bindings,
    /// Task lists' controls changed: read them again.
    Controls,
    /// Signals may have been missed: look at everything.
    Resync,
}

/// The orders in which visibility lists runs. Stored: never renumber.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Listing {
    /// Open runs by start time.
    Open = 0,
    /// Closed runs by start time.
    ClosedByStart = 1,
    /// Closed runs by close time.
    ClosedByClose = 2,
}

/// What visibility picks runs by besides time: SWF's list filters, of which a call gives at
/// most one (spec §4.2). Each run is indexed under every filter it matches, so any listing is
/// one key range: a page costs what it holds, a count what it counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Filter<'a> {
    /// Every run.
    All,
    WorkflowId(&'a str),
    /// The workflow type's name, any version.
    TypeName(&'a str),
    /// The workflow type's name and version.
    Type(&'a str, &'a str),
    Tag(&'a str),
    /// Closed runs that ended so.
    CloseStatus(CloseStatus),
    /// Runs pinned to the decider module of this digest (`model::pins`).
    Module(&'a str),
}

impl<'a> Filter<'a> {
    /// The index filter `filter` names besides time (at most one of its members is given), or
    /// `close_status`, as parsed from it.
    pub(crate) fn of(filter: &'a RunFilter, close_status: Option<CloseStatus>) -> Filter<'a> {
        if let Some(id) = &filter.workflow_id {
            Filter::WorkflowId(id)
        } else if let Some(tag) = &filter.tag {
            Filter::Tag(tag)
        } else if let Some(name) = &filter.type_name {
            match filter.version.as_deref() {
                Some(version) => Filter::Type(name, version),
                None => Filter::TypeName(name),
            }
        } else if let Some(status) = close_status {
            Filter::CloseStatus(status)
        } else if let Some(module) = &filter.module {
            Filter::Module(module)
        } else {
            Filter::All
        }
    }

    /// The filter's part of an index key: its number (stored: never renumber) and its value.
    pub(crate) fn key(&self) -> (u8, Cow<'a, str>) {
        match *self {
            Filter::All => (0, Cow::Borrowed("")),
            Filter::WorkflowId(id) => (1, Cow::Borrowed(id)),
            Filter::TypeName(name) => (2, Cow::Borrowed(name)),
            // Names hold no control characters (spec §3), so NUL separates the two.
            Filter::Type(name, version) => (3, Cow::Owned(format!("{name}\0{version}"))),
            Filter::Tag(tag) => (4, Cow::Borrowed(tag)),
            // Index keys hold the wire name, which SWF fixes: stored, so it never changes.
            Filter::CloseStatus(status) => (5, Cow::Borrowed(status.name())),
            Filter::Module(digest) => (6, Cow::Borrowed(digest)),
        }
    }

    /// Every filter `run` matches in `listing`: where it is indexed.
    pub(crate) fn all_of(run: &'a Run, listing: Listing) -> Vec<Filter<'a>> {
        let ty = &run.workflow_type;
        let mut filters = vec![
            Filter::All,
            Filter::WorkflowId(&run.execution.workflow_id),
            Filter::TypeName(&ty.name),
            Filter::Type(&ty.name, &ty.version),
        ];
        filters.extend(run.tags.iter().map(|tag| Filter::Tag(tag)));
        // Only open runs are pinned to a module: a closed run's pin is its history.
        if listing == Listing::Open {
            filters.extend(run.pin.iter().map(|pin| Filter::Module(&pin.module)));
        }
        if let (Some(closed), false) = (run.closed, listing == Listing::Open) {
            filters.push(Filter::CloseStatus(closed.status));
        }
        filters
    }
}

/// What a durable deadline does when it comes, and which event it belongs to. Stored: never
/// renumber.
///
/// Deadlines of one activity task share its `ActivityTaskScheduled` event, so at one instant
/// they come in the order of their numbers: the spec's tie order (§8.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Deadline {
    /// A timer fires; the event is its `TimerStarted`.
    Timer = 0,
    /// Activity timeouts; the event is the task's `ActivityTaskScheduled`.
    ActivityScheduleToClose = 1,
    ActivityStartToClose = 2,
    ActivityHeartbeat = 3,
    ActivityScheduleToStart = 4,
    /// Decision task timeouts; the event is the task's `DecisionTaskScheduled`.
    DecisionStartToClose = 5,
    DecisionScheduleToStart = 6,
    /// The run times out; the event is its `WorkflowExecutionStarted`.
    RunStartToClose = 7,
    /// A closed run's retention ends; the event is its last.
    Purge = 8,
    /// A started Lambda function task times out; the event is its `LambdaFunctionScheduled`.
    LambdaStartToClose = 9,
    /// A schedule's next nominal time comes, or a run it started closed; the seq is the
    /// schedule's (not a run's), the event 0.
    Schedule = 10,
    /// A batch job's next step; the seq is the job's, the event 0.
    Batch = 11,
}

impl Deadline {
    const ALL: [Deadline; 12] = [
        Deadline::Timer,
        Deadline::ActivityScheduleToClose,
        Deadline::ActivityStartToClose,
        Deadline::ActivityHeartbeat,
        Deadline::ActivityScheduleToStart,
        Deadline::DecisionStartToClose,
        Deadline::DecisionScheduleToStart,
        Deadline::RunStartToClose,
        Deadline::Purge,
        Deadline::LambdaStartToClose,
        Deadline::Schedule,
        Deadline::Batch,
    ];

    pub(super) fn from_u8(kind: u8) -> Option<Deadline> {
        Deadline::ALL.get(usize::from(kind)).copied()
    }
}

/// A deadline that has come: when, which run, set by which event, for what.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Due {
    pub(crate) at: Timestamp,
    pub(crate) run: u64,
    pub(crate) event_id: u64,
    pub(crate) kind: Deadline,
}

#[cfg(test)]
mod tests {
    use super::Deadline;

    #[test]
    fn deadline_kinds_read_back_as_stored() {
        for (n, kind) in Deadline::ALL.into_iter().enumerate() {
            assert_eq!(kind as usize, n);
            assert_eq!(Deadline::from_u8(kind as u8), Some(kind));
        }
        assert_eq!(Deadline::from_u8(Deadline::ALL.len() as u8), None);
    }
}

/// What a change is about, known before it runs.
#[derive(Clone, Debug)]
pub(crate) enum About {
    /// The run `seq` (a task token names it).
    Run(u64),
    /// A new run of `workflow_id` in the domain named `domain` of `scope`.
    Start {
        scope: Scope,
        domain: String,
        workflow_id: String,
    },
    /// A claim of the first task of `kind` on list `list` of the domain named `domain` of
    /// `scope`.
    Poll {
        scope: Scope,
        domain: String,
        kind: TaskKind,
        list: String,
    },
    /// What another node queued on list `list` of `kind` in domain `domain`, offered to a
    /// poll waiting there: a claim, like [`About::Poll`], by the domain's id.
    Offer {
        domain: u64,
        kind: TaskKind,
        list: String,
    },
}

/// Where a page of history read with a commit is put ([`Writes::history_at_commit`]), for
/// whoever waits for the commit.
///
/// [`Writes::history_at_commit`]: super::seam::Writes::history_at_commit
#[derive(Clone, Debug, Default)]
pub(crate) struct HistoryCell(Arc<Mutex<Option<HistoryPage>>>);

/// A page of history: events by id, as wire JSON.
pub(crate) type HistoryPage = Page<(u64, Vec<u8>)>;

impl HistoryCell {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<HistoryPage>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Puts the page read.
    pub(crate) fn put(&self, page: HistoryPage) {
        *self.lock() = Some(page);
    }

    /// The page, if it was read (the transaction committed).
    pub(crate) fn take(&self) -> Option<HistoryPage> {
        self.lock().take()
    }
}
