//! Moving runs between SWF services: what `weft export` writes and `weft import` reads, and the
//! body of `POST /v1/domains/{domain}/imports`. The server and the client share these types.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What [`export_file_name`] percent-encodes in an id: all but letters, digits, `-` and `_`,
/// so ids read as they are and `.`, which separates them, never appears in one.
const ENCODED: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_');

/// The file a run is written to, by `weft export` and by the archive: `WORKFLOW.RUN.json`, its
/// ids percent-encoded where they hold more than letters, digits, `-` and `_`.
pub fn export_file_name(workflow_id: &str, run_id: &str) -> String {
    let id = |id: &str| utf8_percent_encode(id, ENCODED).to_string();
    format!("{}.{}.json", id(workflow_id), id(run_id))
}

/// One run as `weft export` writes it, one file each: the run as `DescribeWorkflowExecution`
/// answers, and its whole history as `GetWorkflowExecutionHistory` answers (every page's events
/// in one list).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExportedRun {
    /// `DescribeWorkflowExecution`'s answer.
    pub describe: Value,
    /// `{"events": [...]}`, oldest first.
    pub history: ExportedHistory,
}

/// A run's whole history.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExportedHistory {
    /// Every event, oldest first, as SWF's wire JSON.
    pub events: Vec<Value>,
}

/// `POST /v1/domains/{domain}/imports`'s body: one run to store as it was recorded.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunImport {
    /// The run's workflow id.
    pub workflow_id: String,
    /// The run's run id.
    pub run_id: String,
    /// Its whole history, oldest first, as SWF's wire JSON.
    pub events: Vec<Value>,
}

/// What an import did.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportAnswer {
    /// Whether the run was stored now: false if it was there already.
    pub added: bool,
}

#[cfg(test)]
mod tests {
    use super::export_file_name;

    #[test]
    fn export_file_names_keep_ids_readable_and_distinct() {
        assert_eq!(
            export_file_name("order-1_a", "Ab-_9"),
            "order-1_a.Ab-_9.json"
        );
        // `.`, `/` and `%` are encoded, so no two runs share a file and none leaves the folder.
        assert_eq!(export_file_name("a.b", "c"), "a%2Eb.c.json");
        assert_eq!(export_file_name("a", "b.c"), "a.b%2Ec.json");
        assert_eq!(export_file_name("../x", "100%"), "%2E%2E%2Fx.100%25.json");
    }
}
