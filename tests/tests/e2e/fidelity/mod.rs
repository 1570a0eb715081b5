//! Wire fidelity: the places where recorded AWS SWF traffic and real clients show AWS behaving
//! otherwise than its documentation reads, each pinned through aws-sdk-swf here and through
//! boto3 in `boto3.rs`. `FIDELITY.md` at the top of the repository lists the evidence.
//!
//! | file | what |
//! | --- | --- |
//! | `scheduling.rs` | a decision task scheduled while another is started, in the order of a real AWS history |
//! | `members.rs` | optional members absent when nobody set them, and the ones AWS always sends |
//! | `faults.rs` | fault codes and messages in AWS's words |
//! | `acceptance.rs` | what AWS accepts beyond its documentation: bare close decisions, `:` in ids, pages of 100 |
//! | `refusals.rs` | what AWS refuses, refused at once and clearly |
//! | `closing.rs` | describing a run its decider canceled; the members of the close events |
//! | `history_cap.rs` | the 25,000-event cap: the crossing batch whole, then the termination |
//! | `boto3.rs` | the same behaviours through boto3 (`tests/clients/fidelity.py`), and the edge's long-poll cap |

mod acceptance;
mod boto3;
mod closing;
mod faults;
mod history_cap;
mod members;
mod refusals;
mod scheduling;

use serde_json::Value;
use weft_tests::TestServer;

use crate::flow::D;

/// The history of a run in domain [`D`] as wire JSON, to see exactly which members AWS's
/// clients receive.
async fn raw_history(server: &TestServer, workflow_id: &str, run_id: &str) -> Vec<Value> {
    let endpoint = server.endpoint();
    let addr = endpoint.trim_start_matches("http://");
    weft_tests::history_json(addr, D, workflow_id, run_id).await
}

/// The attributes of the first event of `event_type` in `events`, as wire JSON.
#[track_caller]
fn attributes<'a>(events: &'a [Value], event_type: &str) -> &'a Value {
    let event = events
        .iter()
        .find(|e| e["eventType"] == event_type)
        .unwrap_or_else(|| panic!("no {event_type} in the history"));
    let mut member = event_type.to_owned();
    member[..1].make_ascii_lowercase();
    &event[format!("{member}EventAttributes")]
}

/// The member names of a JSON object, sorted.
#[track_caller]
fn members(object: &Value) -> Vec<&str> {
    let mut names: Vec<&str> = object
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    names.sort_unstable();
    names
}

/// Asserts that `events` keep every rule of `weft_host::check::check_history`.
#[track_caller]
fn assert_consistent(events: &[Value]) {
    assert_eq!(
        weft_host::check::check_history(events),
        Vec::<String>::new()
    );
}
