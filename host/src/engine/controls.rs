//! Task lists' controls as this process knows them ([`ListControls`]): read from the store at
//! start and again after every change (by any node sharing it), so that a claim consults them
//! without reading the store (a list with a rate reads its tokens, which change with each
//! claim); and the lists whose rate holds polls back until a time ([`Throttled`]).

use std::collections::HashMap;
use std::sync::{PoisonError, RwLock};

use crate::model::{ListControl, ListKey, TaskKind};

/// The controls of the task lists that have any.
#[derive(Default)]
pub(crate) struct ListControls(RwLock<HashMap<ListKey, ListControl>>);

impl ListControls {
    /// Whether the list `name` of `kind` in domain `domain` is paused.
    pub(crate) fn is_paused(&self, domain: u64, kind: TaskKind, name: &str) -> bool {
        let controls = self.0.read().unwrap_or_else(PoisonError::into_inner);
        // Most processes control no list: they look nothing up.
        !controls.is_empty()
            && (controls.get(&(domain, kind, name.to_owned()))).is_some_and(|c| c.paused.is_some())
    }

    /// Whether a list `name` of `kind` is paused in any domain.
    pub(crate) fn is_paused_anywhere(&self, kind: TaskKind, name: &str) -> bool {
        let controls = self.0.read().unwrap_or_else(PoisonError::into_inner);
        (controls.iter()).any(|((_, k, n), c)| *k == kind && n == name && c.paused.is_some())
    }

    /// Whether the list `name` of `kind` in domain `domain` has a rate: its claims then take
    /// tokens, kept in the store.
    pub(crate) fn is_limited(&self, domain: u64, kind: TaskKind, name: &str) -> bool {
        let controls = self.0.read().unwrap_or_else(PoisonError::into_inner);
        !controls.is_empty()
            && (controls.get(&(domain, kind, name.to_owned()))).is_some_and(|c| c.rate.is_some())
    }

    /// The controls of the lists of domain `domain` that have any.
    pub(crate) fn of_domain(&self, domain: u64) -> Vec<(ListKey, ListControl)> {
        let controls = self.0.read().unwrap_or_else(PoisonError::into_inner);
        let of_domain = controls.iter().filter(|(key, _)| key.0 == domain);
        of_domain.map(|(key, c)| (key.clone(), c.clone())).collect()
    }

    /// Replaces what is known with `controls`, as read from the store; answers the lists that
    /// were paused and no longer are, whose waiting polls may now be handed tasks.
    pub(crate) fn replace(&self, controls: Vec<(ListKey, ListControl)>) -> Vec<ListKey> {
        let mut known = self.0.write().unwrap_or_else(PoisonError::into_inner);
        let now: HashMap<_, _> = controls.into_iter().collect();
        let resumed = known
            .iter()
            .filter(|(key, c)| {
                c.paused.is_some() && now.get(*key).is_none_or(|c| c.paused.is_none())
            })
            .map(|(key, _)| key.clone())
            .collect();
        *known = now;
        resumed
    }
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
