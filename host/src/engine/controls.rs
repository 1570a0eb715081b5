//! Task lists' controls as this process knows them ([`ListControls`]): read from the store at
//! start and again after every change (by any node sharing it), so that a claim consults them
//! without reading the store.

use std::collections::HashMap;
use std::sync::{PoisonError, RwLock};

use crate::model::{ListControl, ListKey, Pause, TaskKind};

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

    /// The paused lists of domain `domain`, with their pauses.
    pub(crate) fn paused_in(&self, domain: u64) -> Vec<(ListKey, Pause)> {
        let controls = self.0.read().unwrap_or_else(PoisonError::into_inner);
        let paused = controls.iter().filter(|(key, _)| key.0 == domain);
        paused
            .filter_map(|(key, c)| Some((key.clone(), c.paused.clone()?)))
            .collect()
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
