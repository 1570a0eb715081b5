//! The API's records as one short line each, for people: what `weft` prints without `--json`.
//! Members a record lacks print as `?`, so an older or newer server still gets readable lines.

use serde_json::Value;

/// A module: `DIGEST  WORLD  SIZE bytes  uploaded TIME`.
pub fn module(module: &Value) -> String {
    format!(
        "{}  {}  {} bytes  uploaded {}",
        text(&module["digest"]),
        text(&module["world"]),
        text(&module["size"]),
        time(&module["uploadedAt"]),
    )
}

/// A binding: `KIND NAME in DOMAIN -> DIGEST  concurrency N, cpu N ms, memory N MiB, output N KiB`,
/// then `, http HOST HOST...` if it may send HTTP requests.
pub fn binding(binding: &Value) -> String {
    let limits = &binding["limits"];
    let hosts: Vec<String> = binding["httpHosts"]
        .as_array()
        .map(|hosts| hosts.iter().map(text).collect())
        .unwrap_or_default();
    let http = if hosts.is_empty() {
        String::new()
    } else {
        format!(", http {}", hosts.join(" "))
    };
    format!(
        "{} {} in {} -> {}  concurrency {}, cpu {} ms, memory {} MiB, output {} KiB{http}",
        text(&binding["kind"]),
        text(&binding["name"]),
        text(&binding["domain"]),
        text(&binding["module"]),
        text(&binding["concurrency"]),
        text(&limits["cpuMs"]),
        scaled(&limits["memoryBytes"], 20),
        scaled(&limits["outputBytes"], 10),
    )
}

/// A guest's failure: `TIME  WORKFLOW-ID RUN-ID  TASK: REASON`.
pub fn failure(failure: &Value) -> String {
    format!(
        "{}  {} {}  {}: {}",
        time(&failure["at"]),
        text(&failure["workflowId"]),
        text(&failure["runId"]),
        text(&failure["task"]),
        text(&failure["reason"]),
    )
}

/// A string as is, anything else as JSON, nothing as `?`.
fn text(value: &Value) -> String {
    match value {
        Value::Null => "?".to_owned(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A size in units of `2^shift` bytes (whole ones when it divides).
fn scaled(value: &Value, shift: u32) -> String {
    match value.as_u64() {
        Some(n) if n % (1 << shift) == 0 => (n >> shift).to_string(),
        Some(n) => format!("{:.2}", n as f64 / f64::from(1u32 << shift)),
        None => "?".to_owned(),
    }
}

/// Seconds since the Unix epoch (the wire's timestamps) as `YYYY-MM-DDTHH:MM:SSZ`.
fn time(value: &Value) -> String {
    let Some(secs) = value.as_f64().filter(|s| s.is_finite() && *s >= 0.0) else {
        return text(value);
    };
    let secs = secs as u64;
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn times_are_utc_dates() {
        assert_eq!(time(&json!(0)), "1970-01-01T00:00:00Z");
        assert_eq!(time(&json!(951_782_400.5)), "2000-02-29T00:00:00Z");
        assert_eq!(time(&json!(1_767_225_599)), "2025-12-31T23:59:59Z");
        assert_eq!(time(&json!(null)), "?");
    }

    #[test]
    fn records_read_as_one_line() {
        let binding = json!({
            "domain": "orders", "kind": "activity", "name": "work", "module": "ab12",
            "concurrency": 4,
            "limits": {"cpuMs": 10000, "memoryBytes": 67_108_864, "outputBytes": 1_572_864},
        });
        assert_eq!(
            super::binding(&binding),
            "activity work in orders -> ab12  concurrency 4, cpu 10000 ms, memory 64 MiB, \
             output 1536 KiB"
        );
        let mut allowed = binding.clone();
        allowed["httpHosts"] = json!(["api.example.com", "127.0.0.1:8080"]);
        assert!(
            super::binding(&allowed)
                .ends_with("output 1536 KiB, http api.example.com 127.0.0.1:8080")
        );
        let module = json!({"digest": "ab12", "world": "decider", "size": 10, "uploadedAt": 0});
        assert_eq!(
            super::module(&module),
            "ab12  decider  10 bytes  uploaded 1970-01-01T00:00:00Z"
        );
        assert_eq!(
            failure(&json!({"task": "activity 1", "reason": "trap"})),
            "?  ? ?  activity 1: trap"
        );
    }
}
