//! Reading a run's history a page at a time, oldest first: what reads a whole history (or a
//! long part of it) goes through, so that it holds one page of the store's at once.

use super::{Cursor, Reads, StoreError};

/// Events read from the store at once.
const PAGE: usize = 1000;

/// A page of events: each one's id and wire JSON, as stored.
pub(crate) type EventPage = Vec<(u64, Vec<u8>)>;

/// Run `seq`'s events `first..=last`, as stored, a page at a time.
pub(crate) struct HistoryPages {
    seq: u64,
    first: u64,
    last: u64,
    cursor: Cursor<u64>,
    done: bool,
}

impl HistoryPages {
    /// The events `first..=last` of run `seq`.
    pub(crate) fn new(seq: u64, first: u64, last: u64) -> Self {
        let cursor = Cursor {
            after: None,
            reverse: false,
            limit: PAGE,
        };
        HistoryPages {
            seq,
            first,
            last,
            cursor,
            done: false,
        }
    }

    /// The run's events `first` to the last it has.
    pub(crate) fn since(seq: u64, first: u64) -> Self {
        HistoryPages::new(seq, first, u64::MAX - 1)
    }

    /// The next page; `None` once every event is read.
    pub(crate) fn next(&mut self, tx: &dyn Reads) -> Result<Option<EventPage>, StoreError> {
        if self.done {
            return Ok(None);
        }
        let page = tx.history(self.seq, self.first, self.last, self.cursor)?;
        self.cursor.after = page.items.last().map(|(id, _)| *id);
        self.done = !page.more || self.cursor.after.is_none();
        Ok(Some(page.items))
    }
}
