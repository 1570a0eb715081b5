//! Typed payloads (feature `serde`): inputs and results read as JSON into your own types, and
//! results written from them.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use weft_guest::{ActivityTask, Failure, Json};
//!
//! #[derive(Deserialize)]
//! struct Order { order_id: String, amount_cents: u64 }
//!
//! #[derive(Serialize)]
//! struct Receipt { charge_id: String, amount_cents: u64 }
//!
//! fn charge(task: &ActivityTask) -> Result<Json<Receipt>, Failure> {
//!     let order: Order = task.input_json()?;
//!     Ok(Json(Receipt { charge_id: format!("CH-{}", order.order_id), amount_cents: order.amount_cents }))
//! }
//! ```

use std::fmt;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::{ActivityTask, Failure, History, IntoResult, Status};

/// A result to answer as JSON: return `Ok(Json(value))` from an activity worker (or a
/// [`Activities`](crate::Activities) function) or a function.
///
/// ```
/// use weft_guest::{Json, Outcome};
///
/// let outcome: Outcome = Ok::<_, String>(Json(serde_json::json!({"b": 1, "a": [true]}))).into();
/// assert_eq!(outcome, Outcome::Completed(Some(r#"{"a":[true],"b":1}"#.into())));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Json<T>(pub T);

impl<T: Serialize> IntoResult for Json<T> {
    fn into_result(self) -> Result<Option<String>, Failure> {
        to_json(&self.0).map(Some).map_err(Failure::from)
    }
}

/// Why a payload could not be read or written as JSON. It converts into a `String` (a
/// decider's error) and into a [`Failure`] (its reason, with the parser's complaint as
/// details), so `?` works in deciders, workers and functions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PayloadError {
    /// What is wrong, in short: `the input is not JSON`.
    reason: &'static str,
    /// Where, as the parser says it; none if the payload is missing.
    details: Option<String>,
}

impl fmt::Display for PayloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.details {
            None => f.write_str(self.reason),
            Some(details) => write!(f, "{}: {details}", self.reason),
        }
    }
}

impl std::error::Error for PayloadError {}

impl From<PayloadError> for String {
    fn from(error: PayloadError) -> String {
        error.to_string()
    }
}

impl From<PayloadError> for Failure {
    fn from(error: PayloadError) -> Failure {
        Failure {
            reason: Some(error.reason.to_owned()),
            details: error.details,
        }
    }
}

/// `value` as compact JSON, as a payload (an input, a result, a marker's details).
///
/// ```
/// let input = weft_guest::to_json(&serde_json::json!({"sku": "tea"})).unwrap();
/// assert_eq!(input, r#"{"sku":"tea"}"#);
/// ```
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String, PayloadError> {
    serde_json::to_string(value).map_err(|e| PayloadError {
        reason: "the result cannot be written as JSON",
        details: Some(e.to_string()),
    })
}

/// `text` read as JSON; `missing` and `invalid` say what is wrong if it is absent or not JSON.
fn from_json<T: DeserializeOwned>(
    text: Option<&str>,
    missing: &'static str,
    invalid: &'static str,
) -> Result<T, PayloadError> {
    let text = text.ok_or(PayloadError {
        reason: missing,
        details: None,
    })?;
    serde_json::from_str(text).map_err(|e| PayloadError {
        reason: invalid,
        details: Some(e.to_string()),
    })
}

impl History {
    /// The execution's input, read as JSON.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// let history = HistoryBuilder::new("Order", "1.0", Some(r#"{"items":2}"#)).decision_task();
    /// let order: serde_json::Value = history.input_json().unwrap();
    /// assert_eq!(order["items"], 2);
    /// let none = HistoryBuilder::new("Order", "1.0", None).decision_task();
    /// let missing = none.input_json::<serde_json::Value>().unwrap_err();
    /// assert_eq!(missing.to_string(), "the input is missing");
    /// ```
    pub fn input_json<T: DeserializeOwned>(&self) -> Result<T, PayloadError> {
        from_json(
            self.input(),
            "the input is missing",
            "the input is not JSON",
        )
    }
}

impl Status<'_> {
    /// The result of what completed, read as JSON; [`PayloadError`] if it has no result (or
    /// has not completed).
    ///
    /// ```
    /// use weft_guest::Status;
    ///
    /// let receipt: u64 = Status::Completed(Some("42")).result_json().unwrap();
    /// assert_eq!(receipt, 42);
    /// assert!(Status::Started.result_json::<u64>().is_err());
    /// ```
    pub fn result_json<T: DeserializeOwned>(&self) -> Result<T, PayloadError> {
        from_json(
            self.result(),
            "there is no result",
            "the result is not JSON",
        )
    }
}

impl ActivityTask {
    /// The task's input, read as JSON. As a [`Failure`], its error has reason `the activity
    /// needs an input` or `the input is not JSON`, as the Python and JavaScript SDKs say.
    pub fn input_json<T: DeserializeOwned>(&self) -> Result<T, PayloadError> {
        let (missing, invalid) = ("the activity needs an input", "the input is not JSON");
        from_json(self.input.as_deref(), missing, invalid)
    }
}
