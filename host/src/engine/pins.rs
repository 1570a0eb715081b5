//! Pinning a run to its decider module (see `model::pins`): the pin is stored with the run and
//! indexed, so that the runs pinned to a module are listed and counted from the index.

use crate::model::{Pin, Run};
use crate::store::{Filter, Listing, StoreError, Writes};

/// Pins the open `run` to `pin`'s module, moving its index entry from the module it was pinned
/// to, if any. The caller saves the run.
pub(crate) fn pin_run(tx: &mut dyn Writes, run: &mut Run, pin: Pin) -> Result<(), StoreError> {
    let (listing, time) = (Listing::Open, run.started_at);
    if let Some(old) = &run.pin {
        tx.index_run(run, listing, time, &Filter::Module(&old.module), true)?;
    }
    tx.index_run(run, listing, time, &Filter::Module(&pin.module), false)?;
    run.pin = Some(pin);
    Ok(())
}
