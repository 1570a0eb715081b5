//! Helpers shared by the end-to-end tests.

use std::fmt::Debug;

use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::error::{ProvideErrorMetadata, SdkError};

/// Registers the domain `name` with a one-day retention.
pub(crate) async fn register_domain(client: &Client, name: &str) {
    client
        .register_domain()
        .name(name)
        .workflow_execution_retention_period_in_days("1")
        .send()
        .await
        .unwrap_or_else(|e| panic!("register {name}: {e:?}"));
}

/// The error code and message of a call that must fail.
pub(crate) fn fault<T: Debug, E: ProvideErrorMetadata + Debug, R: Debug>(
    result: Result<T, SdkError<E, R>>,
) -> (String, String) {
    let err = result.expect_err("the call should fail");
    let code = err
        .code()
        .unwrap_or_else(|| panic!("no error code in {err:?}"))
        .to_owned();
    let message = err.message().unwrap_or_default().to_owned();
    (code, message)
}

/// Asserts that a call failed with error code `code`, and returns its message.
#[track_caller]
pub(crate) fn expect_fault<T: Debug, E: ProvideErrorMetadata + Debug, R: Debug>(
    result: Result<T, SdkError<E, R>>,
    code: &str,
) -> String {
    let (actual, message) = fault(result);
    assert_eq!(actual, code, "unexpected fault: {message}");
    message
}
