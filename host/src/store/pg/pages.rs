//! History pages read by statement: a poll's or a read's own, and those a decision task's
//! claim asks to be read with its transaction's commit (`Writes::history_at_commit`), which go
//! as one statement when there are several.

use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::conn::Step;
use super::reads::{big, bytes, page_of, past, unbig};
use crate::store::seam::{Cursor, Page};
use crate::store::{HistoryCell, StoreError};

/// A page of a run's history to read: run, events from (inclusive) and to (exclusive), how
/// many rows (one past the page), and whether newest first.
#[derive(Clone, Copy)]
pub(super) struct HistoryBounds {
    seq: i64,
    from: i64,
    to: i64,
    rows: i64,
    reverse: bool,
    /// The page's size.
    pub(super) limit: usize,
}

impl HistoryBounds {
    /// The page `cursor` of run `seq`'s events `first..=last` (`RunReads::history`).
    pub(super) fn new(seq: u64, (first, last): (u64, u64), cursor: Cursor<u64>) -> Self {
        let end = big(last).saturating_add(1);
        let (from, to) = match cursor.reverse {
            true => (big(first), cursor.after.map_or(end, big)),
            false => (
                cursor
                    .after
                    .map_or(big(first), |after| big(after).saturating_add(1)),
                end,
            ),
        };
        HistoryBounds {
            seq: big(seq),
            from,
            to,
            rows: past(cursor.limit),
            reverse: cursor.reverse,
            limit: cursor.limit,
        }
    }

    /// The statement that reads the page, and its parameters.
    pub(super) fn statement(&self) -> (&'static str, [i64; 4]) {
        let sql = match self.reverse {
            true => {
                "SELECT event_id, json FROM events WHERE seq = $1 AND event_id >= $2 \
                 AND event_id < $3 ORDER BY event_id DESC LIMIT $4"
            }
            false => {
                "SELECT event_id, json FROM events WHERE seq = $1 AND event_id >= $2 \
                 AND event_id < $3 ORDER BY event_id LIMIT $4"
            }
        };
        (sql, [self.seq, self.from, self.to, self.rows])
    }

    /// The parameters of [`HISTORY_PAGES`] for `pages`.
    pub(super) fn columns(pages: &[HistoryBounds]) -> HistoryColumns {
        let column = |f: fn(&HistoryBounds) -> i64| pages.iter().map(f).collect();
        (
            column(|p| p.seq),
            column(|p| p.from),
            column(|p| p.to),
            column(|p| p.rows),
            pages.iter().map(|p| p.reverse).collect(),
        )
    }
}

/// [`HISTORY_PAGES`]'s parameters: one array per column of [`HistoryBounds`].
pub(super) type HistoryColumns = (Vec<i64>, Vec<i64>, Vec<i64>, Vec<i64>, Vec<bool>);

/// Several pages of histories (`HistoryBounds::columns`), each page's rows in its order, with
/// the page's number (from 1) last: one statement instead of one a page.
pub(super) const HISTORY_PAGES: &str = "SELECT e.event_id, e.json, p.i \
     FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bool[]) \
     WITH ORDINALITY AS p(seq, from_id, to_id, n, reverse, i) \
     CROSS JOIN LATERAL ((SELECT event_id, json FROM events WHERE seq = p.seq \
     AND event_id >= p.from_id AND event_id < p.to_id AND NOT p.reverse \
     ORDER BY event_id LIMIT p.n) UNION ALL (SELECT event_id, json FROM events \
     WHERE seq = p.seq AND event_id >= p.from_id AND event_id < p.to_id AND p.reverse \
     ORDER BY event_id DESC LIMIT p.n)) e \
     ORDER BY p.i, CASE WHEN p.reverse THEN -e.event_id ELSE e.event_id END";

/// The page of a history statement's `rows`, of at most `limit` events.
pub(super) fn history_page(
    rows: Vec<Row>,
    limit: usize,
) -> Result<Page<(u64, Vec<u8>)>, StoreError> {
    page_of(rows, limit, |row| {
        Ok((unbig(row, 0), bytes(row, 1).to_vec()))
    })
}

/// The history pages a commit reads, and where each goes: one statement a page, or one for
/// them all when there are several.
pub(super) struct CommitPages {
    pages: Vec<(HistoryBounds, HistoryCell)>,
    reads: Reads,
}

/// How a commit's pages are read.
enum Reads {
    /// A statement a page, with its parameters (at most one page).
    Each(Vec<(&'static str, [i64; 4])>),
    /// [`HISTORY_PAGES`] with these parameters.
    All(HistoryColumns),
}

impl CommitPages {
    pub(super) fn new(pages: Vec<(HistoryBounds, HistoryCell)>) -> Self {
        let bounds: Vec<_> = pages.iter().map(|(page, _)| *page).collect();
        let reads = match bounds.len() {
            0 | 1 => Reads::Each(bounds.iter().map(HistoryBounds::statement).collect()),
            _ => Reads::All(HistoryBounds::columns(&bounds)),
        };
        CommitPages { pages, reads }
    }

    /// The parameters of the statements, for [`CommitPages::steps`].
    pub(super) fn params(&self) -> Vec<Vec<&(dyn ToSql + Sync)>> {
        match &self.reads {
            Reads::All((seqs, from, to, rows, reverse)) => {
                vec![vec![seqs as _, from as _, to as _, rows as _, reverse as _]]
            }
            Reads::Each(statements) => statements
                .iter()
                .map(|(_, params)| params.iter().map(|p| p as _).collect())
                .collect(),
        }
    }

    /// The statements, with their parameters `params`.
    pub(super) fn steps<'a>(
        &self,
        params: &'a [Vec<&'a (dyn ToSql + Sync)>],
    ) -> impl Iterator<Item = Step<'a>> + use<'a> {
        let sqls: Vec<&'static str> = match &self.reads {
            Reads::All(_) => vec![HISTORY_PAGES],
            Reads::Each(statements) => statements.iter().map(|(sql, _)| *sql).collect(),
        };
        sqls.into_iter()
            .zip(params)
            .map(|(sql, params)| Step::Prepared(sql, params))
    }

    /// Fills each page's cell from the statements' `answers`, in order. A page that does not
    /// read back is left empty, and read again by its poll.
    pub(super) fn fill(self, mut answers: impl Iterator<Item = Vec<Row>>) {
        let rows: Vec<Vec<Row>> = match self.reads {
            Reads::Each(_) => answers.by_ref().take(self.pages.len()).collect(),
            Reads::All(_) => {
                let mut rows: Vec<Vec<Row>> = self.pages.iter().map(|_| Vec::new()).collect();
                for row in answers.next().unwrap_or_default() {
                    let page = usize::try_from(row.get::<_, i64>(2) - 1).ok();
                    if let Some(page) = page.and_then(|i| rows.get_mut(i)) {
                        page.push(row);
                    }
                }
                rows
            }
        };
        for ((page, into), rows) in self.pages.into_iter().zip(rows) {
            if let Ok(read) = history_page(rows, page.limit) {
                into.put(read);
            }
        }
    }
}
