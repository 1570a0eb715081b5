//! A history event's wire JSON: `{eventId, eventTimestamp, eventType,
//! <eventType>EventAttributes}`, written for clients and read back by in-process callers that
//! read histories (`weft demo`).

use serde::de::{Deserializer, Error as _};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::clock::Timestamp;

use super::{Event, HistoryEvent};

/// The member of a wire event that holds its attributes: `ActivityTaskScheduled` →
/// `activityTaskScheduledEventAttributes`.
pub(crate) fn event_attributes_member(event_type: &str) -> String {
    attributes_member(event_type, "EventAttributes")
}

/// The member of a wire decision that holds its attributes: `StartTimer` →
/// `startTimerDecisionAttributes`.
pub(crate) fn decision_attributes_member(decision_type: &str) -> String {
    attributes_member(decision_type, "DecisionAttributes")
}

fn attributes_member(kind: &str, suffix: &str) -> String {
    let mut chars = kind.chars();
    let head = chars.next().map(|c| c.to_ascii_lowercase());
    head.into_iter()
        .chain(chars)
        .chain(suffix.chars())
        .collect()
}

impl Serialize for HistoryEvent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(4))?;
        map.serialize_entry("eventId", &self.event_id)?;
        map.serialize_entry("eventTimestamp", &self.timestamp)?;
        map.serialize_entry("eventType", self.event.event_type())?;
        self.event.serialize_attributes(&mut map)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for HistoryEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire {
            event_id: u64,
            event_timestamp: Timestamp,
            event_type: String,
            /// The `<eventType>EventAttributes` member.
            #[serde(flatten)]
            members: Map<String, Value>,
        }
        let wire = Wire::deserialize(d)?;
        Ok(HistoryEvent {
            event_id: wire.event_id,
            timestamp: wire.event_timestamp,
            event: Event::from_wire(&wire.event_type, wire.members).map_err(D::Error::custom)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{Cause, attrs};
    use super::*;

    #[test]
    fn events_read_back_as_they_were_written() {
        let event = HistoryEvent {
            event_id: 7,
            timestamp: Timestamp::from_millis(2_250),
            event: attrs::ActivityTaskTimedOut {
                timeout_type: Cause::Heartbeat,
                scheduled_event_id: 5,
                started_event_id: 6,
                details: None,
            }
            .into(),
        };
        let wire = serde_json::to_value(&event).unwrap();
        let read: HistoryEvent = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(serde_json::to_value(&read).unwrap(), wire);
        assert_eq!(read.event_id, 7);
        assert!(matches!(
            read.event,
            Event::ActivityTaskTimedOut(attrs::ActivityTaskTimedOut {
                timeout_type: Cause::Heartbeat,
                ..
            })
        ));
    }

    #[test]
    fn an_unknown_type_or_a_missing_attributes_member_is_an_error() {
        let unknown = json!({"eventId": 1, "eventTimestamp": 1, "eventType": "Nope"});
        let e = serde_json::from_value::<HistoryEvent>(unknown).unwrap_err();
        assert!(e.to_string().contains("unknown event type"), "{e}");
        let bare = json!({"eventId": 1, "eventTimestamp": 1, "eventType": "TimerFired"});
        let e = serde_json::from_value::<HistoryEvent>(bare).unwrap_err();
        assert!(e.to_string().contains("timerFiredEventAttributes"), "{e}");
    }
}
