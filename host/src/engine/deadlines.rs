//! What happens when a durable deadline comes: a timer fires (spec §6.8). Timeouts join here.

use crate::fault::Fault;
use crate::model::events::attrs;
use crate::store::{Deadline, Due};

use super::Engine;

/// Acts on a deadline that has come. A deadline whose subject is gone (its run closed, its timer
/// canceled) does nothing.
pub(crate) fn fire(eng: &mut Engine<'_, '_>, due: Due) -> Result<(), Fault> {
    let Some(mut run) = eng.open_run(due.run)? else {
        return Ok(());
    };
    match due.kind {
        Deadline::Timer => {
            let timer_id = run
                .timers
                .iter()
                .find(|(_, t)| t.started_event_id == due.event_id)
                .map(|(id, _)| id.clone());
            let Some(timer_id) = timer_id else {
                return Ok(());
            };
            run.timers.remove(&timer_id);
            let event = attrs::TimerFired {
                timer_id,
                started_event_id: due.event_id,
            };
            eng.record(&mut run, event)?;
            eng.trigger(&mut run)?;
            eng.save(&run)
        }
    }
}
