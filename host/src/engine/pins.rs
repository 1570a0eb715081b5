//! Pinning a run to its decider module (see `model::pins`): the pin is stored with the run and
//! indexed, so that the runs pinned to a module are listed and counted from the index.

use crate::model::{Pin, Run};
use crate::store::{Listing, StoreError, Writes};

/// Pins `run` to `pin`'s module, moving its index entry from the module it was pinned to, if
/// any. The caller saves the run.
pub(crate) fn pin_run(tx: &mut dyn Writes, run: &mut Run, pin: Pin) -> Result<(), StoreError> {
    let open = run.is_open();
    if open && run.pin.is_some() {
        tx.unlist_run(run, Listing::Open, run.started_at)?;
    }
    run.pin = Some(pin);
    if open {
        // Listing again adds the module's entry; the run's other entries are there already.
        tx.list_run(run, Listing::Open, run.started_at)?;
    }
    Ok(())
}
