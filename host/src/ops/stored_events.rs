//! History pages as the store keeps their events: each the JSON it was recorded as (checked on
//! import for imported runs). A page goes out as stored, never parsed again: a decider that
//! reads a 24,000-event history reads 240 pages, and checking each event to send it again was
//! the largest part of a page's own cost (`cargo bench --bench history`).

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::fault::Fault;
use crate::store::Page;

/// Events of one history page, oldest first unless the page is reversed, as stored.
#[derive(Debug, Default)]
pub(crate) struct StoredEvents(Vec<Vec<u8>>);

impl StoredEvents {
    /// The events of a page the store read.
    pub(crate) fn from_page(page: Page<(u64, Vec<u8>)>) -> Self {
        StoredEvents(page.items.into_iter().map(|(_, json)| json).collect())
    }

    /// Adds `more` after these.
    pub(crate) fn append(&mut self, mut more: StoredEvents) {
        self.0.append(&mut more.0);
    }

    /// Each event read as `T`, for callers in-process.
    pub(crate) fn parse<T: DeserializeOwned>(&self) -> Result<Vec<T>, Fault> {
        self.0
            .iter()
            .map(|json| serde_json::from_slice(json).map_err(Fault::internal))
            .collect()
    }

    /// The events as a JSON array.
    fn write(&self, out: &mut Vec<u8>) {
        out.push(b'[');
        for (n, json) in self.0.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            out.extend_from_slice(json);
        }
        out.push(b']');
    }

    fn json_len(&self) -> usize {
        self.0.iter().map(|json| json.len() + 1).sum::<usize>() + 2
    }
}

/// An answer holding a history page: written as the JSON object `rest` serializes to, with
/// member `events` first when there are events to send. First is where AWS puts it too, since
/// it sorts members by name.
pub(crate) fn with_events(
    events: Option<&StoredEvents>,
    rest: &impl Serialize,
) -> Result<Vec<u8>, Fault> {
    let rest = serde_json::to_vec(rest).map_err(Fault::internal)?;
    let Some(events) = events else {
        return Ok(rest);
    };
    let mut out = Vec::with_capacity(events.json_len() + rest.len() + 16);
    out.extend_from_slice(br#"{"events":"#);
    events.write(&mut out);
    match rest.as_slice() {
        b"{}" => out.push(b'}'),
        _ => {
            out.push(b',');
            out.extend_from_slice(&rest[1..]);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn events(jsons: &[&str]) -> StoredEvents {
        StoredEvents(jsons.iter().map(|j| j.as_bytes().to_vec()).collect())
    }

    #[test]
    fn events_come_first_as_stored_then_the_other_members() {
        let page = events(&[r#"{"eventId":1}"#, r#"{"eventId":2,"x":"a,\"b"}"#]);
        let body = with_events(Some(&page), &json!({"nextPageToken": "t"})).unwrap();
        assert_eq!(
            String::from_utf8(body).unwrap(),
            r#"{"events":[{"eventId":1},{"eventId":2,"x":"a,\"b"}],"nextPageToken":"t"}"#
        );
    }

    #[test]
    fn an_empty_page_and_no_other_members_are_still_an_object() {
        let body = with_events(Some(&events(&[])), &json!({})).unwrap();
        assert_eq!(body, br#"{"events":[]}"#);
        let body = with_events(None, &json!({"startedEventId": 0})).unwrap();
        assert_eq!(body, br#"{"startedEventId":0}"#);
    }

    #[test]
    fn appended_pages_parse_in_order() {
        let mut all = events(&[r#"{"eventId":1}"#]);
        all.append(events(&[r#"{"eventId":2}"#]));
        let ids: Vec<Value> = all.parse().unwrap();
        assert_eq!(ids, [json!({"eventId": 1}), json!({"eventId": 2})]);
    }
}
