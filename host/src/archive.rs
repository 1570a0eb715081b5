//! The archive (`weft serve --archive DIR`): each closed run written out, as `weft export`
//! writes it, before retention purges it, so `weft import --from` can bring it back.
//!
//! Writing files inside the writer's job would hold up every change behind them, so the purge
//! does not wait there: a run due for purge and not yet written is noted as wanted and its purge
//! put off; the timer loop then writes the wanted runs from a snapshot, outside the writer, and
//! the purge that comes back finds its run written. A run is on disk (synced, then renamed into
//! place) before its purge can commit; after a crash it is written again, to the same file.
//!
//! A run that cannot be written is tried again later and later (each run [`backoff`] after its
//! own failures). When several runs fail in a row with none written, the archive is taken to
//! be down (a full disk, a folder gone): only one run, the one tried least, is tried at each of
//! the archive's own retries, and the purges wait for those. Each change between up and down is
//! logged once, with the backlog; `weft_archive_backlog` counts the runs waiting.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;

use crate::clock::Timestamp;
use crate::engine::PurgeGate;
use crate::fault::Fault;
use crate::model::transfer::{ExportedHistory, ExportedRun, export_file_name};
use crate::ops::Service;
use crate::ops::history::{ExecutionDetail, whole_history};
use crate::store::StoreError;

/// How long a purge waits for its run to be written the first time: the timer loop writes it
/// at once, and the purge comes back then.
pub(crate) const PUT_OFF: Duration = Duration::from_secs(1);

/// The longest wait between two tries of a run, or of an archive that is down.
const MOST_BACKOFF: Duration = Duration::from_secs(300);

/// How long to wait after the `failures`th failure in a row: [`PUT_OFF`], doubled each time,
/// up to [`MOST_BACKOFF`].
fn backoff(failures: u32) -> Duration {
    PUT_OFF
        .saturating_mul(1 << failures.min(16))
        .min(MOST_BACKOFF)
}

/// A run waiting to be written: how many times writing it failed, and when to try again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Wanted {
    failures: u32,
    next: Timestamp,
}

/// How many different runs must fail to be written in a row, with none written between, for
/// the archive to be taken as down (not a run that cannot be written for reasons of its own).
const DOWN_AFTER: usize = 3;

/// Whether the archive takes writes.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Health {
    /// Up, though the runs `failing` failed to be written since the latest write that
    /// succeeded (fewer than [`DOWN_AFTER`]).
    Up { failing: Vec<u64> },
    /// No write succeeded since `since`: `failures` writes failed, the latest with `error`,
    /// and the next try is at `next`, after `rounds` tries.
    Down {
        since: Timestamp,
        failures: u64,
        error: String,
        rounds: u32,
        next: Timestamp,
    },
}

/// The archive directory and the runs on their way into it.
#[derive(Debug)]
pub(crate) struct Archive {
    dir: PathBuf,
    /// Runs whose purge came before they were written.
    wanted: Mutex<BTreeMap<u64, Wanted>>,
    /// Runs written and not yet purged.
    written: Mutex<std::collections::BTreeSet<u64>>,
    health: Mutex<Health>,
    /// How many runs are wanted.
    backlog: Gauge,
    /// Writes that failed.
    failed: Counter,
}

impl Archive {
    /// An archive writing into `dir` (created when the first run is written), counting its
    /// backlog in `backlog` and its failed writes in `failed`.
    pub(crate) fn new(dir: PathBuf, backlog: Gauge, failed: Counter) -> Self {
        Archive {
            dir,
            wanted: Mutex::default(),
            written: Mutex::default(),
            health: Mutex::new(Health::Up {
                failing: Vec::new(),
            }),
            backlog,
            failed,
        }
    }

    /// Writes the wanted runs whose time has come (while the archive is down, once its wait
    /// is over, every wanted run, beginning with a probe: the one tried least). A run that
    /// cannot be written stays wanted, to be tried again after its backoff, while its purge
    /// waits; once the archive is down, or still is, the round stops.
    pub(crate) async fn write_wanted(&self, svc: &Service) {
        let now = svc.clock.now();
        let down = match &*lock(&self.health) {
            Health::Down { next, .. } if now < *next => return,
            health => matches!(health, Health::Down { .. }),
        };
        // The runs tried least first: while the archive is down, the first is its probe, and
        // the rest follow only if it is written.
        let mut due: Vec<(u32, u64)> = lock(&self.wanted)
            .iter()
            .filter(|(_, wanted)| wanted.next <= now || down)
            .map(|(&seq, wanted)| (wanted.failures, seq))
            .collect();
        due.sort_unstable();
        for (_, seq) in due {
            match self.write(svc, seq).await {
                Ok(()) => self.written(seq, now),
                Err(error) => {
                    if self.failed_to_write(seq, now, error) {
                        break;
                    }
                }
            }
        }
    }

    /// Notes that run `seq` is written: the archive is up.
    fn written(&self, seq: u64, now: Timestamp) {
        lock(&self.written).insert(seq);
        let backlog = {
            let mut wanted = lock(&self.wanted);
            wanted.remove(&seq);
            self.backlog.set(wanted.len() as i64);
            wanted.len()
        };
        let was = std::mem::replace(
            &mut *lock(&self.health),
            Health::Up {
                failing: Vec::new(),
            },
        );
        if let Health::Down {
            since, failures, ..
        } = was
        {
            let down_for = now.as_millis().saturating_sub(since.as_millis());
            let down_for = Duration::from_millis(u64::try_from(down_for).unwrap_or(0));
            tracing::info!(
                failures,
                ?down_for,
                backlog,
                "the archive takes writes again"
            );
        }
    }

    /// Notes that writing run `seq` failed with `error`; answers whether the archive is down
    /// (then no other run is tried now).
    fn failed_to_write(&self, seq: u64, now: Timestamp, error: Fault) -> bool {
        self.failed.inc();
        let (failures, backlog) = {
            let mut wanted = lock(&self.wanted);
            let backlog = wanted.len();
            let Some(entry) = wanted.get_mut(&seq) else {
                return false;
            };
            entry.failures += 1;
            entry.next = after(now, backoff(entry.failures));
            (entry.failures, backlog)
        };
        let mut health = lock(&self.health);
        let error = error.to_string();
        match &mut *health {
            Health::Up { failing } if failing.contains(&seq) || failing.len() + 1 < DOWN_AFTER => {
                if !failing.contains(&seq) {
                    failing.push(seq);
                }
                match failures {
                    1 => tracing::warn!(run = seq, %error, "cannot archive a closed run yet"),
                    _ => tracing::debug!(run = seq, %error, "cannot archive a closed run yet"),
                }
                false
            }
            Health::Up { failing } => {
                let failures = failing.len() as u64 + 1;
                tracing::error!(
                    %error,
                    backlog,
                    "cannot write to the archive: purges wait until it takes writes again"
                );
                *health = Health::Down {
                    since: now,
                    failures,
                    error,
                    rounds: 1,
                    next: after(now, backoff(1)),
                };
                true
            }
            Health::Down {
                failures: count,
                error: latest,
                rounds,
                next,
                ..
            } => {
                tracing::debug!(run = seq, %error, "the archive still takes no writes");
                *count += 1;
                *rounds += 1;
                *next = after(now, backoff(*rounds));
                *latest = error;
                true
            }
        }
    }

    /// Writes run `seq` to `DIR/ACCOUNT/REGION/DOMAIN/WORKFLOW.RUN.json`.
    async fn write(&self, svc: &Service, seq: u64) -> Result<(), Fault> {
        let read = svc.store.read_long(move |tx| {
            let Some(run) = tx.run(seq)? else {
                return Ok(None);
            };
            let (scope, domain) = tx
                .every_domain()?
                .into_iter()
                .find(|(_, domain)| domain.id == run.domain)
                .ok_or_else(|| StoreError::broken("a run without its domain"))?;
            let events = whole_history(tx, seq)?;
            let dir = [&scope.account, &scope.region, &domain.name];
            Ok::<_, Fault>(Some((dir.map(String::clone), run, events)))
        });
        let Some((dir, run, events)) = read.await? else {
            return Ok(()); // Gone already: nothing to keep.
        };
        let file = export_file_name(&run.execution.workflow_id, &run.execution.run_id);
        let exported = ExportedRun {
            describe: serde_json::to_value(ExecutionDetail::of(run)).map_err(Fault::internal)?,
            history: ExportedHistory { events },
        };
        let json = serde_json::to_vec(&exported).map_err(Fault::internal)?;
        let dir = dir
            .iter()
            .fold(self.dir.clone(), |path, part| path.join(folder_name(part)));
        tokio::task::spawn_blocking(move || write_durably(&dir, &file, &json))
            .await
            .map_err(Fault::internal)?
            .map_err(|e| Fault::internal(format!("{}: {e}", self.dir.display())))
    }
}

impl PurgeGate for Archive {
    /// Whether run `seq`'s purge may go ahead at `now`: `Ok` if it is written; if not, it is
    /// wanted, and the purge is to come back at the time answered, once a write may have
    /// been tried.
    fn may_purge(&self, seq: u64, now: Timestamp) -> Result<(), Timestamp> {
        if lock(&self.written).remove(&seq) {
            return Ok(());
        }
        let mut wanted = lock(&self.wanted);
        let entry = *wanted.entry(seq).or_insert(Wanted {
            failures: 0,
            next: now,
        });
        self.backlog.set(wanted.len() as i64);
        let down_until = match &*lock(&self.health) {
            Health::Down { next, .. } => *next,
            Health::Up { .. } => now,
        };
        Err(entry.next.max(down_until).max(after(now, PUT_OFF)))
    }
}

/// Writes `json` to `dir/file` so that it is whole on disk once this returns: into a temporary
/// file, synced, renamed into place, and the directory synced. A temporary file left by a
/// write that failed is removed, so that it holds no space on a disk that may be full.
fn write_durably(dir: &Path, file: &str, json: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let partial = dir.join(format!("{file}.partial"));
    let written = (|| {
        let mut out = std::fs::File::create(&partial)?;
        out.write_all(json)?;
        out.sync_all()?;
        std::fs::rename(&partial, dir.join(file))
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written?;
    std::fs::File::open(dir)?.sync_all()
}

/// The folder a name is kept in: itself, but `.` and `..`, which SWF's name rule lets a domain
/// be and a path would take for this folder and its parent, percent-encoded (as `weft
/// export` encodes ids in file names): `%2E` and `%2E%2E`; so is a `%` (`%25`), so that no
/// two names share a folder.
fn folder_name(name: &str) -> String {
    match name {
        "." | ".." => name.replace('.', "%2E"),
        name => name.replace('%', "%25"),
    }
}

/// `at` plus `wait`.
fn after(at: Timestamp, wait: Duration) -> Timestamp {
    at.plus_millis(u64::try_from(wait.as_millis()).unwrap_or(u64::MAX))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn archive() -> Archive {
        Archive::new(
            PathBuf::from("unused"),
            Gauge::default(),
            Counter::default(),
        )
    }

    #[test]
    fn a_run_may_be_purged_once_written_and_is_wanted_until_then() {
        let archive = archive();
        let now = Timestamp::from_millis(10_000);
        assert_eq!(archive.may_purge(7, now), Err(after(now, PUT_OFF)));
        assert_eq!(archive.backlog.get(), 1);
        archive.written(7, now);
        assert_eq!(archive.backlog.get(), 0);
        assert_eq!(archive.may_purge(7, now), Ok(()));
        assert!(lock(&archive.written).is_empty());
        assert!(lock(&archive.wanted).is_empty());
    }

    #[test]
    fn failures_put_a_run_off_longer_each_time_and_several_runs_the_archive() {
        let archive = archive();
        let now = Timestamp::from_millis(10_000);
        for seq in 7..=10 {
            let _ = archive.may_purge(seq, now);
        }
        // One run that cannot be written waits on its own.
        assert!(!archive.failed_to_write(7, now, Fault::internal("name too long")));
        let later = after(now, backoff(1));
        assert!(!archive.failed_to_write(7, later, Fault::internal("name too long")));
        let wanted = lock(&archive.wanted)[&7];
        assert_eq!(
            wanted,
            Wanted {
                failures: 2,
                next: after(later, backoff(2))
            }
        );
        assert_eq!(backoff(2), 4 * PUT_OFF);
        assert_eq!(backoff(30), MOST_BACKOFF);
        // Others failing too, with none written: the archive is down, and every purge waits
        // for its next try.
        assert!(!archive.failed_to_write(8, later, Fault::internal("disk full")));
        assert!(archive.failed_to_write(9, later, Fault::internal("disk full")));
        assert!(matches!(
            &*lock(&archive.health),
            Health::Down { failures: 3, .. }
        ));
        assert_eq!(archive.may_purge(10, later), Err(after(later, backoff(1))));
        archive.written(10, later);
        assert_eq!(
            *lock(&archive.health),
            Health::Up {
                failing: Vec::new()
            }
        );
        assert_eq!(archive.failed.get(), 4);
    }

    #[test]
    fn dot_names_are_folders_of_their_own() {
        assert_eq!(folder_name("."), "%2E");
        assert_eq!(folder_name(".."), "%2E%2E");
        assert_eq!(folder_name("..."), "...");
        assert_eq!(folder_name("orders"), "orders");
        assert_eq!(folder_name("%2E"), "%252E");
    }

    #[test]
    fn a_file_is_written_whole_with_no_partial_left() {
        let dir = tempfile::tempdir().unwrap();
        let domain = dir.path().join("123/us-east-1/orders");
        write_durably(&domain, "w--r.json", b"{}").unwrap();
        assert_eq!(std::fs::read(domain.join("w--r.json")).unwrap(), b"{}");
        assert_eq!(std::fs::read_dir(&domain).unwrap().count(), 1);
    }

    #[test]
    fn a_write_that_fails_leaves_no_partial_file() {
        let dir = tempfile::tempdir().unwrap();
        // A temporary file on a full disk: /dev/full takes no byte.
        let partial = dir.path().join("w--r.json.partial");
        std::os::unix::fs::symlink("/dev/full", &partial).unwrap();
        let error = write_durably(dir.path(), "w--r.json", b"{}").unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::StorageFull);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
