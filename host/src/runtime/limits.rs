//! What one guest call may use: CPU time, memory and output, with the host's defaults and
//! ceilings.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The limits of one call into a guest. Every binding has its own; absent members take the
/// defaults, unknown ones are refused (a misspelt limit must not silently take its default), and
/// no member may exceed [`GuestLimits::CEILING`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    default,
    deny_unknown_fields,
    expecting = "a JSON object"
)]
pub struct GuestLimits {
    /// CPU time one call may take, in milliseconds (time spent waiting in the host, such as in a
    /// heartbeat, does not count).
    pub cpu_ms: u64,
    /// Linear memory the guest may grow to, in bytes.
    pub memory_bytes: u64,
    /// Size of what one call may answer, in bytes of its JSON form.
    pub output_bytes: u64,
}

impl Default for GuestLimits {
    fn default() -> Self {
        GuestLimits {
            cpu_ms: 10_000,
            memory_bytes: 64 << 20,
            output_bytes: 1 << 20,
        }
    }
}

impl GuestLimits {
    /// The most any binding may allow: 15 minutes of CPU (SWF's longest Lambda), 1 GiB of memory
    /// (the size of one slot in the instance pool), 4 MiB of output.
    pub(crate) const CEILING: GuestLimits = GuestLimits {
        cpu_ms: 15 * 60 * 1000,
        memory_bytes: 1 << 30,
        output_bytes: 4 << 20,
    };

    /// The first member above its ceiling, as a message for the client.
    pub(crate) fn check(&self) -> Result<(), String> {
        let ceiling = GuestLimits::CEILING;
        let over = [
            ("cpuMs", self.cpu_ms, ceiling.cpu_ms),
            ("memoryBytes", self.memory_bytes, ceiling.memory_bytes),
            ("outputBytes", self.output_bytes, ceiling.output_bytes),
        ]
        .into_iter()
        .find(|(_, value, max)| *value == 0 || value > max);
        match over {
            Some((name, value, max)) => Err(format!("{name} is {value}; it must be 1 to {max}")),
            None => Ok(()),
        }
    }

    /// The CPU budget as a duration.
    pub(crate) fn cpu(&self) -> Duration {
        Duration::from_millis(self.cpu_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_within_the_ceiling_and_zero_or_more_is_refused() {
        assert_eq!(GuestLimits::default().check(), Ok(()));
        assert_eq!(GuestLimits::CEILING.check(), Ok(()));
        let zero = GuestLimits {
            cpu_ms: 0,
            ..GuestLimits::default()
        };
        assert!(zero.check().unwrap_err().starts_with("cpuMs is 0"));
        let big = GuestLimits {
            memory_bytes: (1 << 30) + 1,
            ..GuestLimits::default()
        };
        assert!(big.check().unwrap_err().starts_with("memoryBytes"));
    }

    #[test]
    fn absent_members_take_the_defaults() {
        let limits: GuestLimits = serde_json::from_str(r#"{"cpuMs": 50}"#).unwrap();
        assert_eq!(limits.cpu_ms, 50);
        assert_eq!(limits.memory_bytes, GuestLimits::default().memory_bytes);
        assert!(serde_json::from_str::<GuestLimits>(r#"{"cpu_ms": 50}"#).is_err());
    }
}
