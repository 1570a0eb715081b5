//! The archive (`weft serve --archive DIR`): each closed run written out, as `weft export`
//! writes it, before retention purges it, so `weft import --from` can bring it back.
//!
//! Writing files inside the writer's job would hold up every change behind them, so the purge
//! does not wait there: a run due for purge and not yet written is noted as wanted and its purge
//! put off ([`PUT_OFF`]); the timer loop then writes the wanted runs from a snapshot, outside
//! the writer, and the purge that comes back finds its run written. A run is on disk (synced,
//! then renamed into place) before its purge can commit; after a crash it is written again,
//! to the same file.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use crate::fault::Fault;
use crate::model::transfer::{ExportedHistory, ExportedRun, export_file_name};
use crate::ops::Service;
use crate::ops::history::{ExecutionDetail, whole_history};
use crate::store::StoreError;

/// How long a purge waits for its run to be written: the timer loop writes it at once, so this
/// is the retry interval if writing fails.
pub(crate) const PUT_OFF: Duration = Duration::from_secs(1);

/// The archive directory and the runs on their way into it.
#[derive(Debug)]
pub(crate) struct Archive {
    dir: PathBuf,
    /// Runs whose purge came before they were written.
    wanted: Mutex<BTreeSet<u64>>,
    /// Runs written and not yet purged.
    written: Mutex<BTreeSet<u64>>,
}

impl Archive {
    /// An archive writing into `dir` (created when the first run is written).
    pub(crate) fn new(dir: PathBuf) -> Self {
        Archive {
            dir,
            wanted: Mutex::default(),
            written: Mutex::default(),
        }
    }

    /// Whether run `seq`'s purge may go ahead: it is written. If not, it is wanted.
    pub(crate) fn may_purge(&self, seq: u64) -> bool {
        if lock(&self.written).remove(&seq) {
            return true;
        }
        lock(&self.wanted).insert(seq);
        false
    }

    /// Writes every wanted run; a run that cannot be written stays wanted, and its purge waits.
    pub(crate) async fn write_wanted(&self, svc: &Service) {
        let wanted = std::mem::take(&mut *lock(&self.wanted));
        for seq in wanted {
            match self.write(svc, seq).await {
                Ok(()) => {
                    lock(&self.written).insert(seq);
                }
                Err(error) => {
                    tracing::error!(run = seq, %error, "cannot archive a closed run");
                    lock(&self.wanted).insert(seq);
                }
            }
        }
    }

    /// Writes run `seq` to `DIR/ACCOUNT/REGION/DOMAIN/WORKFLOW--RUN.json`.
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
            .fold(self.dir.clone(), |path, part| path.join(part));
        tokio::task::spawn_blocking(move || write_durably(&dir, &file, &json))
            .await
            .map_err(Fault::internal)?
            .map_err(|e| Fault::internal(format!("{}: {e}", self.dir.display())))
    }
}

/// Writes `json` to `dir/file` so that it is whole on disk once this returns: into a temporary
/// file, synced, renamed into place, and the directory synced.
fn write_durably(dir: &Path, file: &str, json: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let partial = dir.join(format!("{file}.partial"));
    let mut out = std::fs::File::create(&partial)?;
    out.write_all(json)?;
    out.sync_all()?;
    std::fs::rename(&partial, dir.join(file))?;
    std::fs::File::open(dir)?.sync_all()
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_may_be_purged_once_written_and_is_wanted_until_then() {
        let archive = Archive::new(PathBuf::from("unused"));
        assert!(!archive.may_purge(7));
        assert_eq!(*lock(&archive.wanted), BTreeSet::from([7]));
        lock(&archive.wanted).clear();
        lock(&archive.written).insert(7);
        assert!(archive.may_purge(7));
        assert!(lock(&archive.written).is_empty());
        assert!(lock(&archive.wanted).is_empty());
    }

    #[test]
    fn a_file_is_written_whole_with_no_partial_left() {
        let dir = tempfile::tempdir().unwrap();
        let domain = dir.path().join("123/us-east-1/orders");
        write_durably(&domain, "w--r.json", b"{}").unwrap();
        assert_eq!(std::fs::read(domain.join("w--r.json")).unwrap(), b"{}");
        assert_eq!(std::fs::read_dir(&domain).unwrap().count(), 1);
    }
}
