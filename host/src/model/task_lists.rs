//! Operator controls of one task list (`/v1/domains/{domain}/task-lists/{kind}/{name}/...`):
//! what the store keeps of them, and the bodies the server and the client share.
//!
//! A paused list hands none of its tasks to any poller (over HTTP or in-process, at any node)
//! until it resumes; tasks keep being queued on it, polls on it wait as on an empty list, and
//! tasks already started run on. A list with a rate hands out at most that many tasks a second,
//! across all nodes, one every `1/rate` seconds (a token bucket of one token, kept with its
//! controls), polls waiting meanwhile. SWF's operations see nothing of either but the wait.

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
        self.paused.is_none() && self.rate.is_none()
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

/// What a task list's limit asks for.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a JSON object"
)]
pub struct ListLimitRequest {
    /// Tasks handed out per second at most, across all nodes; `null` for no limit.
    pub rate: Option<f64>,
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
}
