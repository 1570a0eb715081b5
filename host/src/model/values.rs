//! Values the wire carries as strings and Weft keeps typed: durations and task priorities,
//! each parsed once, where it enters (checked with AWS's messages by `rules.rs`), and written
//! back in SWF's form (`"NONE"` or whole seconds, a decimal integer); and the two ids that name
//! a run, which have no rule beyond their length (checked by the schema) but must not be
//! mistaken for one another.

use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Serialize};

/// The longest duration SWF accepts anywhere: one year.
pub(crate) const MAX_DURATION_SECS: u32 = 31_536_000;

/// A duration member: whole seconds, or `NONE` for no limit where the member allows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub(crate) enum Timeout {
    /// No limit.
    None,
    /// A limit of this many seconds.
    Seconds(u32),
}

impl Timeout {
    /// Parses a duration string; `None` if it is neither `NONE` nor 0..=one year of seconds.
    pub(crate) fn parse(s: &str) -> Option<Timeout> {
        if s == "NONE" {
            return Some(Timeout::None);
        }
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse()
            .ok()
            .filter(|&n| n <= MAX_DURATION_SECS)
            .map(Timeout::Seconds)
    }

    /// The limit in seconds, if there is one.
    pub(crate) fn limit(self) -> Option<u32> {
        match self {
            Timeout::None => None,
            Timeout::Seconds(secs) => Some(secs),
        }
    }
}

impl fmt::Display for Timeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Timeout::None => f.write_str("NONE"),
            Timeout::Seconds(secs) => write!(f, "{secs}"),
        }
    }
}

impl TryFrom<String> for Timeout {
    type Error = String;

    fn try_from(s: String) -> Result<Self, String> {
        Timeout::parse(&s).ok_or_else(|| format!("not a duration: {s:?}"))
    }
}

impl From<Timeout> for String {
    fn from(timeout: Timeout) -> String {
        timeout.to_string()
    }
}

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub(crate) struct $name(String);

        impl $name {
            /// The id as the wire spells it.
            pub(crate) fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl Deref for $name {
            type Target = str;

            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> Self {
                $name(id)
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                $name(id.to_owned())
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }
    };
}

id! {
    /// A workflow id: the starter's name for a workflow, which at most one open run holds.
    WorkflowId
}

id! {
    /// A run id: the service's name for one run of a workflow id.
    RunId
}

/// A task priority: a signed 32-bit integer, higher first (spec §8.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub(crate) struct Priority(pub(crate) i32);

impl Priority {
    /// Parses a priority string; `None` if it is not a 32-bit integer.
    pub(crate) fn parse(s: &str) -> Option<Priority> {
        s.parse().ok().map(Priority)
    }
}

impl fmt::Display for Priority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl TryFrom<String> for Priority {
    type Error = String;

    fn try_from(s: String) -> Result<Self, String> {
        Priority::parse(&s).ok_or_else(|| format!("not a task priority: {s:?}"))
    }
}

impl From<Priority> for String {
    fn from(priority: Priority) -> String {
        priority.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_priorities_read_and_write_as_swf_sends_them() {
        for text in ["NONE", "0", "3600", "31536000"] {
            let timeout: Timeout = serde_json::from_value(text.into()).unwrap();
            assert_eq!(serde_json::to_value(timeout).unwrap(), text);
        }
        for bad in ["", "-1", "31536001", "1.5", "none"] {
            assert!(
                serde_json::from_value::<Timeout>(bad.into()).is_err(),
                "{bad:?}"
            );
        }
        assert_eq!(Timeout::parse("NONE").and_then(Timeout::limit), None);
        for text in ["0", "-2147483648", "2147483647"] {
            let priority: Priority = serde_json::from_value(text.into()).unwrap();
            assert_eq!(serde_json::to_value(priority).unwrap(), text);
        }
        assert!(serde_json::from_value::<Priority>("2147483648".into()).is_err());
    }
}
