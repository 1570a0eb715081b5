//! Task lists' controls as this process knows them ([`ListControls`]): read from the store at
//! start and again after every change (by any node sharing it), so that a claim consults them
//! without reading the store (a list with a rate reads its tokens, which change with each
//! claim, as do a capped list's started tasks); and the lists whose rate holds polls back until
//! a time ([`Throttled`]).

use std::collections::HashMap;
use std::sync::{PoisonError, RwLock};

use crate::model::{ListControl, ListKey, TaskKind};

/// The controls of the task lists that have any.
#[derive(Default)]
pub(crate) struct ListControls(RwLock<HashMap<ListKey, ListControl>>);

impl ListControls {
    /// What a claim on the list `name` of `kind` in domain `domain` must heed.
    pub(crate) fn gate(&self, domain: u64, kind: TaskKind, name: &str) -> Gate {
        let controls = self.0.read().unwrap_or_else(PoisonError::into_inner);
        // Most processes control no list: they look nothing up.
        if controls.is_empty() {
            return Gate::Open;
        }
        match controls.get(&(domain, kind, name.to_owned())) {
            Some(c) if c.paused.is_some() => Gate::Paused,
            Some(c) if c.is_gated() => Gate::Stored,
            _ => Gate::Open,
        }
    }

    /// Whether the list `name` of `kind` in domain `domain` has fairness keys: a task queued
    /// there reads them (locked) to find its key's queue.
    pub(crate) fn has_fairness(&self, domain: u64, kind: TaskKind, name: &str) -> bool {
        let controls = self.0.read().unwrap_or_else(PoisonError::into_inner);
        !controls.is_empty()
            && (controls.get(&(domain, kind, name.to_owned())))
                .is_some_and(|c| c.fairness.is_some())
    }

    /// The lists of `kind` in domain `domain` with a concurrency cap: a task of theirs that
    /// ends may let a waiting poll have the next.
    pub(crate) fn capped(&self, domain: u64, kind: TaskKind) -> Vec<String> {
        let controls = self.0.read().unwrap_or_else(PoisonError::into_inner);
        let capped = (controls.iter())
            .filter(|((d, k, _), c)| *d == domain && *k == kind && c.concurrency.is_some());
        capped.map(|((_, _, name), _)| name.clone()).collect()
    }

    /// Whether a list `name` of `kind` is paused in any domain.
    pub(crate) fn is_paused_anywhere(&self, kind: TaskKind, name: &str) -> bool {
        let controls = self.0.read().unwrap_or_else(PoisonError::into_inner);
        (controls.iter()).any(|((_, k, n), c)| *k == kind && n == name && c.paused.is_some())
    }

    /// Keeps `control` for the list `key`, as this process just committed it.
    pub(crate) fn put(&self, key: ListKey, control: ListControl) {
        let mut known = self.0.write().unwrap_or_else(PoisonError::into_inner);
        match control.is_empty() {
            true => known.remove(&key),
            false => known.insert(key, control),
        };
    }

    /// The controls of the lists of domain `domain` that have any.
    pub(crate) fn of_domain(&self, domain: u64) -> Vec<(ListKey, ListControl)> {
        let controls = self.0.read().unwrap_or_else(PoisonError::into_inner);
        let of_domain = controls.iter().filter(|(key, _)| key.0 == domain);
        of_domain.map(|(key, c)| (key.clone(), c.clone())).collect()
    }

    /// Replaces what is known with `controls`, as read from the store; answers the lists whose
    /// pause, rate, cap or keys changed and that are not paused now, whose waiting polls may now
    /// be handed tasks.
    pub(crate) fn replace(&self, controls: Vec<(ListKey, ListControl)>) -> Vec<ListKey> {
        let mut known = self.0.write().unwrap_or_else(PoisonError::into_inner);
        let now: HashMap<_, _> = controls.into_iter().collect();
        let limits = |c: &ListControl| {
            let keyed = (c.fairness.clone(), c.is_keyed());
            (c.paused.is_some(), c.rate, c.concurrency, keyed)
        };
        let nothing = ListControl::default();
        let keys = known.keys().chain(now.keys());
        let loosened = keys
            .filter(|key| {
                let (before, after) = (known.get(*key), now.get(*key));
                let (before, after) = (before.unwrap_or(&nothing), after.unwrap_or(&nothing));
                after.paused.is_none() && limits(before) != limits(after)
            })
            .cloned()
            .collect::<std::collections::BTreeSet<_>>();
        *known = now;
        loosened.into_iter().collect()
    }
}

/// What a claim on a list must heed, as this process knows its controls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gate {
    /// Nothing: it hands out its first task.
    Open,
    /// A pause: it hands out nothing.
    Paused,
    /// A rate or a cap, whose state the claim reads from the store (locked) and updates.
    Stored,
}

/// The lists whose rate held a poll back here, each with when its next token comes: the
/// throttle loop offers their tasks to the polls waiting there then.
#[derive(Default)]
pub(crate) struct Throttled {
    due: std::sync::Mutex<HashMap<ListKey, crate::clock::Timestamp>>,
    changed: tokio::sync::Notify,
}

impl Throttled {
    /// The list `key` may hand out a task at `at`.
    pub(crate) fn wake_at(&self, key: ListKey, at: crate::clock::Timestamp) {
        let mut due = self.due.lock().unwrap_or_else(PoisonError::into_inner);
        let at = due.get(&key).map_or(at, |&known| known.min(at));
        due.insert(key, at);
        self.changed.notify_one();
    }

    /// The lists whose time has come at `now`, taken out; and the earliest time left.
    pub(crate) fn take_due(
        &self,
        now: crate::clock::Timestamp,
    ) -> (Vec<ListKey>, Option<crate::clock::Timestamp>) {
        let mut due = self.due.lock().unwrap_or_else(PoisonError::into_inner);
        let come: Vec<ListKey> = (due.iter())
            .filter(|(_, at)| **at <= now)
            .map(|(key, _)| key.clone())
            .collect();
        for key in &come {
            due.remove(key);
        }
        (come, due.values().min().copied())
    }

    /// Completes when a list is added.
    pub(crate) fn changed(&self) -> tokio::sync::futures::Notified<'_> {
        self.changed.notified()
    }
}
