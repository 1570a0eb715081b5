//! What a batch's requests are about, known before they apply (`seam::About`), so that the
//! writer reads it for them all in one round trip (`Session::read_ahead`); and the workflows
//! whose starts read their open run rather than guess it has none (`Doubts`).

use std::collections::{BTreeMap, HashSet};

use super::lists::ListKey;
use super::reads::big;
use super::session::{Link, Session, Writing};
use crate::store::seam::{About, DomainReads as _, Job};

/// Workflows a start guessed wrong to have no open run (another client started them, or this
/// one starts them again and again): their starts read instead of guessing, so that each does
/// not roll its batch back. Forgotten all at once past [`Doubts::MOST`].
#[derive(Default)]
pub(super) struct Doubts(HashSet<Start>);

/// A workflow a request starts: its domain's id and its id.
pub(super) type Start = (i64, String);

impl Doubts {
    const MOST: usize = 10_000;

    /// `starts` (domain, workflow id) split into those to guess and those to read.
    pub(super) fn split(&self, starts: Vec<Start>) -> (Vec<Start>, Vec<Start>) {
        starts
            .into_iter()
            .partition(|start| !self.0.contains(start))
    }

    /// Doubts the guesses of an attempt that one of them failed (which one, the failure
    /// cannot always say: one statement may insert several open runs).
    pub(super) fn doubt(&mut self, guessed: Vec<Start>) {
        if self.0.len() + guessed.len() > Self::MOST {
            self.0.clear();
        }
        self.0.extend(guessed);
    }
}

/// Puts the requests of `batch` that start workflows in the order of their workflows (domain
/// id, then workflow id; requests of one workflow as they came), each in the place one of them
/// had, so that every node's transactions insert open runs in one order. In arrival order, a
/// node whose batch started `a` then `b` and another's that started `b` then `a` each waited
/// for the other's insert until both timed out, and did so again on every retry.
pub(super) fn in_start_order<C: Link>(tx: &mut Session<C, Writing>, batch: &mut [Box<dyn Job>]) {
    let mut starts: Vec<(Start, usize)> = Vec::new();
    for (i, job) in batch.iter().enumerate() {
        if let Some(About::Start {
            scope,
            domain,
            workflow_id,
        }) = job.about()
        {
            // A domain not found starts nothing: any place in the order serves.
            let domain = tx.domain(scope, domain).ok().flatten();
            starts.push(((domain.map_or(-1, |d| big(d.id)), workflow_id.clone()), i));
        }
    }
    if starts.len() < 2 {
        return;
    }
    let places: Vec<usize> = starts.iter().map(|(_, i)| *i).collect();
    starts.sort();
    // `from[p]`: where the request to be at `p` is now.
    let mut from: Vec<usize> = (0..batch.len()).collect();
    for (place, (_, i)) in places.into_iter().zip(starts) {
        from[place] = i;
    }
    permute(batch, &from);
}

/// Rearranges `items` so that the item at `i` is the one that was at `from[i]` (`from` a
/// permutation), following each cycle with swaps.
fn permute<T>(items: &mut [T], from: &[usize]) {
    let mut done = vec![false; items.len()];
    for start in 0..items.len() {
        let mut at = start;
        while !done[at] {
            done[at] = true;
            let next = from[at];
            if next == start {
                break;
            }
            items.swap(at, next);
            at = next;
        }
    }
}

/// What a batch's requests are about, for [`Session::read_ahead`].
pub(super) struct Ahead {
    /// The runs they change, in seq order.
    pub(super) runs: Vec<i64>,
    /// The workflows they start, by domain id (from the node's catalog, as the requests will
    /// find it; one not found is left to its request).
    pub(super) starts: Vec<Start>,
    /// The lists they poll, but for lists the node knows empty, with how many poll each.
    pub(super) polls: Vec<(ListKey, i64)>,
}

/// What `batch`'s requests are about, read in `tx` (domains from the node's catalog).
pub(super) fn ahead<C: Link>(tx: &mut Session<C, Writing>, batch: &[Box<dyn Job>]) -> Ahead {
    let (mut runs, mut starts) = (Vec::new(), Vec::new());
    let mut polls: BTreeMap<ListKey, i64> = BTreeMap::new();
    for about in batch.iter().filter_map(|job| job.about()) {
        match about {
            About::Run(seq) => runs.push(big(*seq)),
            About::Start {
                scope,
                domain,
                workflow_id,
            } => {
                if let Ok(Some(domain)) = tx.domain(scope, domain) {
                    starts.push((big(domain.id), workflow_id.clone()));
                }
            }
            About::Poll {
                scope,
                domain,
                kind,
                list,
            } => {
                if let Ok(Some(domain)) = tx.domain(scope, domain) {
                    *polls
                        .entry((domain.id, *kind as i16, list.clone()))
                        .or_default() += 1;
                }
            }
            About::Offer { domain, kind, list } => {
                *polls
                    .entry((*domain, *kind as i16, list.clone()))
                    .or_default() += 1;
            }
        }
    }
    runs.sort_unstable();
    runs.dedup();
    starts.sort_unstable();
    starts.dedup();
    let polls = polls
        .into_iter()
        .filter(|(list, _)| !tx.mode.lists.known_empty(list))
        .collect();
    Ahead {
        runs,
        starts,
        polls,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_permutation_puts_each_item_where_it_is_asked() {
        for from in [
            vec![2, 0, 1],
            vec![1, 0, 3, 2],
            vec![0, 1, 2],
            vec![3, 2, 0, 1, 4],
        ] {
            let mut items: Vec<usize> = (0..from.len()).map(|i| i * 10).collect();
            permute(&mut items, &from);
            let want: Vec<usize> = from.iter().map(|i| i * 10).collect();
            assert_eq!(items, want, "from {from:?}");
        }
    }

    #[test]
    fn a_workflow_guessed_wrong_is_read_from_then_on() {
        let mut doubts = Doubts::default();
        let start = |id: &str| (1, id.to_owned());
        let (guessed, read) = doubts.split(vec![start("a"), start("b")]);
        assert_eq!((guessed.len(), read.len()), (2, 0));
        doubts.doubt(guessed);
        let (guessed, read) = doubts.split(vec![start("a"), start("c")]);
        assert_eq!((guessed, read), (vec![start("c")], vec![start("a")]));
    }

    #[test]
    fn doubts_are_forgotten_past_the_most() {
        let mut doubts = Doubts::default();
        doubts.doubt(
            (0..Doubts::MOST as i64)
                .map(|d| (d, "w".to_owned()))
                .collect(),
        );
        doubts.doubt(vec![(-1, "w".to_owned())]);
        assert_eq!(doubts.0.len(), 1);
    }
}
