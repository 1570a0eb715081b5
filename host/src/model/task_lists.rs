//! Operator controls of one task list (`/v1/domains/{domain}/task-lists/{kind}/{name}/...`):
//! what the store keeps of them, and the bodies the server and the client share.
//!
//! A paused list hands none of its tasks to any poller (over HTTP or in-process, at any node)
//! until it resumes; tasks keep being queued on it, polls on it wait as on an empty list, and
//! tasks already started run on. A list with a rate hands out at most that many tasks a second,
//! across all nodes, one every `1/rate` seconds (a token bucket of one token, kept with its
//! controls), polls waiting meanwhile. A list with a concurrency cap hands out a task only while
//! fewer of its tasks than the cap are started and not finished, across all nodes. A list with
//! fairness keys queues each task under its run's key (from a tag) and hands out the keys' tasks
//! in shares by their weights ([`Fairness`]). SWF's operations see nothing of these but the
//! wait and the order.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{BindingKind, Pause};
use crate::clock::Timestamp;

/// The controls kept for one task list; a list without any keeps no record.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListControl {
    /// Set while the list is paused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) paused: Option<Pause>,
    /// Tasks handed out per second at most, across all nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) rate: Option<f64>,
    /// What the rate has left to hand out, as of when it was last taken from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) bucket: Option<Bucket>,
    /// Tasks of the list started and not finished at most, across all nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) concurrency: Option<u32>,
    /// The starts counted against `concurrency`, as `[run, scheduled, started]`. A task that
    /// ended stays here until a claim finds the list full and looks, so the count is never
    /// low, and no path that ends a task has to find its list's record.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) running: Vec<[u64; 3]>,
    /// How tasks are keyed and the keys weighed, if they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) fairness: Option<Fairness>,
    /// Where the shares stand, while tasks may be queued under keys: from when fairness is set
    /// until, once it is removed, a claim finds no keyed task left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) shares: Option<Shares>,
}

/// Fairness keys: a task's key is the rest of its run's first tag that starts with
/// `tagPrefix` (none: the key-less tasks, which share as one more key); each key gets a share
/// of the list's hand-outs in proportion to its weight, so that one key's backlog cannot
/// starve another's. SWF's task priority keeps its meaning within the hand-outs.
///
/// A tag, because every SWF client sets tags at the start, they stay with the run (its
/// children and continuations carry them if the decider passes them), visibility filters by
/// them, and reading them costs nothing more: the run is read to queue its task anyway. An
/// input field would need every input to be JSON and parsed at each queuing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Fairness {
    /// The tag prefix that names a run's key: `tenant=` makes the tag `tenant=acme` key
    /// `acme`.
    pub tag_prefix: String,
    /// The weight of each key named (1 to 1000).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub weights: BTreeMap<String, u32>,
    /// The weight of every other key, and of the key-less tasks (1 to 1000; default 1).
    #[serde(default = "one")]
    pub default_weight: u32,
}

fn one() -> u32 {
    1
}

/// The most a key's weight may be.
pub(crate) const MAX_WEIGHT: u32 = 1000;

/// The most keys a list's fairness may weigh by name.
pub(crate) const MAX_WEIGHTED_KEYS: usize = 100;

impl Fairness {
    /// The key of a run tagged `tags`: `""` for none.
    pub(crate) fn key_of<'a>(&self, tags: &'a [String]) -> &'a str {
        (tags.iter())
            .find_map(|tag| tag.strip_prefix(self.tag_prefix.as_str()))
            .unwrap_or("")
    }

    /// The weight of `key`.
    pub(crate) fn weight(&self, key: &str) -> u32 {
        self.weights
            .get(key)
            .copied()
            .unwrap_or(self.default_weight)
    }
}

/// Where a keyed list's shares stand (stride scheduling): each key's pass grows by
/// `STRIDE / weight` with each task handed out, and the key with tasks and the lowest pass
/// goes next, so that over any stretch with backlogs the keys' hand-outs are in proportion
/// to their weights. A key that had nothing waiting comes back at the pass of the last
/// hand-out: it saves no shares up while idle.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Shares {
    /// The pass of the last hand-out.
    pub(crate) now: u64,
    /// Each key's pass, for the keys that had tasks at the last hand-out.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) passes: BTreeMap<String, u64>,
}

/// A weight of 1's step.
const STRIDE: u64 = 1_000_000;

impl Shares {
    /// Of `keys` (each with tasks waiting), the one whose turn it is: the lowest pass, the
    /// first in order on a tie.
    pub(crate) fn next<'k>(&self, keys: &'k [String]) -> Option<&'k str> {
        let pass = |key: &str| self.passes.get(key).map_or(self.now, |&p| p.max(self.now));
        let mut keys = keys.iter().map(String::as_str);
        let first = keys.next()?;
        Some(keys.fold(
            first,
            |best, key| if pass(key) < pass(best) { key } else { best },
        ))
    }

    /// `key`, of weight `weight`, handed out a task; the keys that still have tasks are
    /// `waiting` (a key left out saves no pass).
    pub(crate) fn handed_out(&mut self, key: &str, weight: u32, waiting: &[String]) {
        let pass = self.passes.get(key).map_or(self.now, |&p| p.max(self.now));
        self.now = pass;
        self.passes.retain(|k, _| waiting.iter().any(|w| w == k));
        let step = STRIDE / u64::from(weight.clamp(1, MAX_WEIGHT));
        self.passes
            .insert(key.to_owned(), pass.saturating_add(step));
    }
}

/// The separator between a list's name and a key in the name of the list's queue for that key
/// (a control character, which no SWF name may hold).
const KEY_SEPARATOR: char = '\u{1f}';

/// The queue of the list `list` where tasks of `key` wait; `list` itself for no key.
pub(crate) fn keyed_queue(list: &str, key: &str) -> String {
    match key {
        "" => list.to_owned(),
        key => format!("{list}{KEY_SEPARATOR}{key}"),
    }
}

/// The list and the key of the queue named `queue`.
pub(crate) fn queue_key(queue: &str) -> (&str, &str) {
    queue.split_once(KEY_SEPARATOR).unwrap_or((queue, ""))
}

/// Where a list's keyed queues lie among queue names: after `list`, before this.
pub(crate) fn keyed_queues_end(list: &str) -> String {
    // The character after the separator, which no key reaches.
    format!("{list}\u{20}")
}

/// A rate's token: it hands out one task, and comes back at the rate. The bucket holds one, so
/// that no second, even after an idle while, hands out more than the rate (and one).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Bucket {
    pub(crate) tokens: f64,
    pub(crate) at: Timestamp,
}

impl ListControl {
    /// Whether it controls nothing, so that no record need be kept.
    pub(crate) fn is_empty(&self) -> bool {
        self.paused.is_none()
            && self.rate.is_none()
            && self.concurrency.is_none()
            && self.shares.is_none()
    }

    /// Whether a claim must read the list's record from the store: its rate's tokens, its
    /// started tasks and its shares change with each claim, at any node.
    pub(crate) fn is_gated(&self) -> bool {
        self.rate.is_some() || self.concurrency.is_some() || self.is_keyed()
    }

    /// Whether tasks may wait in the list's keyed queues.
    pub(crate) fn is_keyed(&self) -> bool {
        self.shares.is_some()
    }

    /// Whether its cap counts as many started tasks as it allows (some may have ended since).
    pub(crate) fn is_full(&self) -> bool {
        self.concurrency
            .is_some_and(|cap| self.running.len() >= cap as usize)
    }

    /// Counts the start `[run, scheduled, started]` of a task handed out at `now`.
    pub(crate) fn handed_out(&mut self, now: Timestamp, start: [u64; 3]) {
        self.take_token(now);
        if self.concurrency.is_some() {
            self.running.push(start);
        }
    }

    /// The tokens its rate has at `now`, if it has a rate.
    fn tokens(&self, now: Timestamp) -> Option<(f64, f64)> {
        let rate = self.rate?;
        let most = 1.0;
        let tokens = match self.bucket {
            None => most,
            Some(b) => {
                let secs = (now.as_millis() - b.at.as_millis()).max(0) as f64 / 1000.0;
                (b.tokens + secs * rate).min(most)
            }
        };
        Some((tokens, rate))
    }

    /// When its rate lets a task be handed out, if not at `now`.
    pub(crate) fn next_token(&self, now: Timestamp) -> Option<Timestamp> {
        let (tokens, rate) = self.tokens(now)?;
        if tokens >= 1.0 {
            return None;
        }
        // Less a hair, so that float error never puts the token a millisecond late.
        let wait_ms = ((1.0 - tokens) / rate * 1000.0 - 1e-6).ceil().max(1.0) as u64;
        Some(now.plus_millis(wait_ms))
    }

    /// Takes a token for a task handed out at `now`.
    pub(crate) fn take_token(&mut self, now: Timestamp) {
        if let Some((tokens, _)) = self.tokens(now) {
            self.bucket = Some(Bucket {
                tokens: tokens - 1.0,
                at: now,
            });
        }
    }
}

/// The most a list's rate may be, in tasks a second.
pub(crate) const MAX_LIST_RATE: f64 = 1_000_000.0;

/// The most a list's concurrency cap may be.
pub(crate) const MAX_LIST_CONCURRENCY: u32 = 10_000;

/// What a task list's limit asks for: each member given is set (`null` removes it), each one
/// left out stays as it is.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a JSON object"
)]
pub struct ListLimitRequest {
    /// Tasks handed out per second at most, across all nodes; `null` for no limit.
    #[serde(
        default,
        deserialize_with = "given",
        skip_serializing_if = "Option::is_none"
    )]
    pub rate: Option<Option<f64>>,
    /// Tasks of the list started and not finished at most, across all nodes; `null` for no cap.
    #[serde(
        default,
        deserialize_with = "given",
        skip_serializing_if = "Option::is_none"
    )]
    pub concurrency: Option<Option<u32>>,
    /// How tasks are keyed and the keys weighed (replacing what was); `null` for no keys.
    #[serde(
        default,
        deserialize_with = "given",
        skip_serializing_if = "Option::is_none"
    )]
    pub fairness: Option<Option<Fairness>>,
}

/// A member that is there, even as `null`: `Some(None)`, where a missing one is `None`.
fn given<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// What a task list's limit did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListLimitReport {
    /// The list's kind.
    pub kind: BindingKind,
    /// The list.
    pub name: String,
    /// Its rate now, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// Its concurrency cap now, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<u32>,
    /// Its fairness keys now, if it has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fairness: Option<Fairness>,
    /// Whether the request changed anything.
    pub changed: bool,
}

/// What a task list's pause or resume asks for.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a JSON object"
)]
pub struct ListPauseRequest {
    /// Why (a pause only; at most 256 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Who asks; without one, the caller's account.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<String>,
}

/// What a task list's pause or resume did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPauseReport {
    /// The list's kind.
    pub kind: BindingKind,
    /// The list (for functions, the function's name).
    pub name: String,
    /// Its pause now: `None` once resumed. A list paused already keeps its first pause.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<Pause>,
    /// Whether the request changed anything.
    pub changed: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_hands_out_one_task_per_share_of_a_second_and_saves_none_up() {
        let at = |ms| Timestamp::from_millis(ms);
        let mut control = ListControl {
            rate: Some(2.0),
            ..ListControl::default()
        };
        assert_eq!(control.next_token(at(0)), None);
        control.take_token(at(0));
        assert_eq!(control.next_token(at(0)), Some(at(500)));
        assert_eq!(control.next_token(at(499)), Some(at(500)));
        assert_eq!(control.next_token(at(500)), None);
        control.take_token(at(500));
        // Idle a long while: one task at once, no more.
        let later = at(60_000);
        assert_eq!(control.next_token(later), None);
        control.take_token(later);
        assert_eq!(control.next_token(later), Some(at(60_500)));
        // Below one a second, a task every 1/rate seconds.
        let slow = ListControl {
            rate: Some(0.5),
            bucket: Some(Bucket {
                tokens: 0.0,
                at: at(0),
            }),
            ..ListControl::default()
        };
        assert_eq!(slow.next_token(at(0)), Some(at(2000)));
        let none = ListControl::default();
        assert_eq!(none.next_token(at(0)), None);
    }

    #[test]
    fn a_cap_counts_the_starts_handed_out_and_only_with_a_cap() {
        let now = Timestamp::from_millis(0);
        let mut capped = ListControl {
            concurrency: Some(2),
            ..ListControl::default()
        };
        assert!(capped.is_gated() && !capped.is_full());
        capped.handed_out(now, [1, 5, 6]);
        assert!(!capped.is_full());
        capped.handed_out(now, [2, 5, 6]);
        assert!(capped.is_full());
        assert_eq!(capped.running, vec![[1, 5, 6], [2, 5, 6]]);
        let mut rated = ListControl {
            rate: Some(1.0),
            ..ListControl::default()
        };
        rated.handed_out(now, [1, 5, 6]);
        assert!(rated.running.is_empty() && !rated.is_full());
        assert!(!ListControl::default().is_gated());
    }

    #[test]
    fn keys_with_backlogs_get_hand_outs_in_proportion_to_their_weights() {
        let fairness = Fairness {
            tag_prefix: "tenant=".into(),
            weights: BTreeMap::from([("acme".into(), 3)]),
            default_weight: 1,
        };
        let tags = |t: &[&str]| t.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        assert_eq!(fairness.key_of(&tags(&["x", "tenant=acme"])), "acme");
        assert_eq!(fairness.key_of(&tags(&["x"])), "");
        let keys = vec!["acme".to_owned(), "globex".to_owned()];
        let mut shares = Shares::default();
        let mut handed = BTreeMap::<String, u32>::new();
        for _ in 0..40 {
            let key = shares.next(&keys).expect("a key").to_owned();
            shares.handed_out(&key, fairness.weight(&key), &keys);
            *handed.entry(key).or_default() += 1;
        }
        assert_eq!(handed["acme"], 30);
        assert_eq!(handed["globex"], 10);
        // A key back from idle saves nothing up: it takes its turn, not a run of them.
        let mut idle = Shares::default();
        let acme = vec!["acme".to_owned()];
        for _ in 0..100 {
            idle.handed_out("acme", 3, &acme);
        }
        let next: Vec<_> = (0..4)
            .map(|_| {
                let key = idle.next(&keys).expect("a key").to_owned();
                idle.handed_out(&key, fairness.weight(&key), &keys);
                key
            })
            .collect();
        assert_eq!(
            next.iter().filter(|k| *k == "globex").count(),
            1,
            "{next:?}"
        );
    }

    #[test]
    fn a_keyed_queue_names_its_list_and_key_and_sorts_among_the_lists() {
        assert_eq!(keyed_queue("orders", ""), "orders");
        let queue = keyed_queue("orders", "acme");
        assert_eq!(queue_key(&queue), ("orders", "acme"));
        assert_eq!(queue_key("orders"), ("orders", ""));
        let end = keyed_queues_end("orders");
        assert!("orders" < queue.as_str() && queue < end);
        assert!(end.as_str() < "orders!" && end.as_str() < "orders-x");
    }

    #[test]
    fn a_limit_request_tells_a_member_left_out_from_one_removed() {
        let parse = |text| serde_json::from_str::<ListLimitRequest>(text).unwrap();
        assert_eq!(parse("{}"), ListLimitRequest::default());
        let removed = parse(r#"{"rate": null, "concurrency": 3}"#);
        assert_eq!(removed.rate, Some(None));
        assert_eq!(removed.concurrency, Some(Some(3)));
        let only = ListLimitRequest {
            concurrency: Some(None),
            ..ListLimitRequest::default()
        };
        assert_eq!(
            serde_json::to_string(&only).unwrap(),
            r#"{"concurrency":null}"#
        );
    }
}
