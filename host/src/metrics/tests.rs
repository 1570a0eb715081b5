use super::*;
use crate::model::events::Cause;
use crate::store::{Queued, TaskKind};

use self::swf::{ActivityClosed, Closed};

fn acme() -> Metrics {
    let tenants = vec![("111111111111".to_owned(), "acme".to_owned())];
    Metrics::new(tenants, WriterStats::default())
}

fn no_pending() -> Option<Pending> {
    Some(Pending {
        domains: HashMap::new(),
        queued: Vec::new(),
    })
}

#[test]
fn tenants_label_their_domains_and_open_servers_name_none() {
    let labels = acme().domain_labels("111111111111", "orders");
    assert_eq!(
        labels,
        [("tenant", "acme".into()), ("domain", "orders".into())]
    );
    let open = Metrics::default().domain_labels("000000000000", "orders");
    assert_eq!(open, [("domain", "orders".to_owned())]);
    assert!(Metrics::default().tenant_labels("open").is_empty());
}

#[tokio::test]
async fn measures_are_counted_under_cloudwatch_names() {
    let metrics = acme();
    let labels = metrics.domain_labels("111111111111", "orders");
    for measure in [
        Measure::WorkflowStarted,
        Measure::WorkflowStarted,
        Measure::WorkflowClosed {
            how: Closed::TimedOut,
            seconds: 2.0,
        },
        Measure::ActivityClosed {
            how: ActivityClosed::TimedOut(Cause::Heartbeat),
            schedule_to_close: Some(0.5),
            start_to_close: None,
        },
    ] {
        metrics.record(&labels, measure);
    }
    let text = metrics.render(no_pending()).await;
    let on = r#"{tenant="acme",domain="orders"}"#;
    for line in [
        format!("swf_workflows_started_total{on} 2"),
        format!("swf_workflows_timed_out_total{on} 1"),
        format!("swf_workflow_start_to_close_time_seconds_sum{on} 2.0"),
        format!("swf_started_activity_tasks_timed_out_on_heartbeat_total{on} 1"),
        format!("swf_activity_task_schedule_to_close_time_seconds_count{on} 1"),
    ] {
        assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
    }
    // Nothing timed start-to-close: the activity never started.
    assert!(!text.contains("swf_activity_task_start_to_close_time_seconds_count{"));
    assert!(text.ends_with("# EOF\n"));
}

#[tokio::test]
async fn the_build_and_the_process_are_in_every_scrape() {
    let text = Metrics::default().render(no_pending()).await;
    let line = format!(
        r#"weft_build_info{{version="{}"}} 1"#,
        env!("CARGO_PKG_VERSION")
    );
    assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
    if cfg!(target_os = "linux") {
        for name in [
            "process_resident_memory_bytes ",
            "process_cpu_seconds_total ",
            "process_open_fds ",
        ] {
            assert!(
                text.lines().any(|l| l.starts_with(name)),
                "no {name} in\n{text}"
            );
        }
    }
}

#[tokio::test]
async fn pending_lists_past_the_cap_are_summed_as_other() {
    let metrics = Metrics::default();
    let queued = (0..MAX_LIST_SERIES + 2)
        .map(|i| Queued {
            domain: 7,
            kind: TaskKind::Activity,
            list: format!("list-{i:04}"),
            count: 3,
        })
        .collect();
    let pending = Pending {
        domains: HashMap::from([(7, ("000000000000".to_owned(), "orders".to_owned()))]),
        queued,
    };
    let text = metrics.render(Some(pending)).await;
    let series = text
        .lines()
        .filter(|l| l.starts_with("swf_pending_tasks{"))
        .count();
    assert_eq!(series, MAX_LIST_SERIES + 1);
    let other = r#"swf_pending_tasks{domain="orders",kind="activity",task_list="(other)"} 6"#;
    assert!(text.lines().any(|l| l == other), "{text}");
    // A later scrape shows only what is pending then.
    let text = metrics.render(no_pending()).await;
    assert!(!text.contains("swf_pending_tasks{"));
    assert!(text.lines().any(|l| l == "weft_store_up 1"), "{text}");
}

#[tokio::test]
async fn a_scrape_that_cannot_read_the_store_says_so_and_shows_no_pending_tasks() {
    let metrics = Metrics::default();
    let pending = Pending {
        domains: HashMap::from([(7, ("000000000000".to_owned(), "orders".to_owned()))]),
        queued: vec![Queued {
            domain: 7,
            kind: TaskKind::Activity,
            list: "list".to_owned(),
            count: 3,
        }],
    };
    assert!(
        metrics
            .render(Some(pending))
            .await
            .contains("swf_pending_tasks{")
    );
    let text = metrics.render(None).await;
    assert!(text.lines().any(|l| l == "weft_store_up 0"), "{text}");
    assert!(
        !text.contains("swf_pending_tasks{"),
        "stale counts are not shown"
    );
}
