//! The order's activities, each answering at once.

use weft_guest::{ActivityTask, Failure};

weft_guest::activity_worker!(run);

fn run(task: &ActivityTask) -> Result<Option<String>, Failure> {
    let result = match task.activity_type.name.as_str() {
        "Reserve" => "reserved",
        "Charge" => "receipt-1",
        "Refund" => "refunded",
        "Pack" => "tracking-1",
        other => return Err(Failure::new(format!("unknown activity type {other}"))),
    };
    Ok(Some(result.to_owned()))
}
