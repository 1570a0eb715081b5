use super::*;
use crate::model::events::Cause;
use crate::model::{Kind, Queued, TaskKind, TypeName};

use self::swf::{ActivityClosed, Closed};

fn acme() -> Metrics {
    let tenants = vec![("111111111111".to_owned(), "acme".to_owned())];
    Metrics::new(tenants, None)
}

fn no_pending() -> Option<Pending> {
    Some(Pending {
        domains: HashMap::new(),
        queued: Vec::new(),
        types: Vec::new(),
        pinned: Vec::new(),
        schedules: Vec::new(),
        lists_paused: Vec::new(),
    })
}

fn ty(name: &str, version: &str) -> TypeName {
    TypeName {
        name: name.into(),
        version: version.into(),
    }
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
async fn measures_are_counted_under_cloudwatch_names_by_type() {
    let metrics = acme();
    let labels = metrics.domain_labels("111111111111", "orders");
    let order = ty("Order", "1.0");
    for measure in [
        Measure::WorkflowStarted,
        Measure::WorkflowStarted,
        Measure::WorkflowClosed {
            how: Closed::TimedOut,
            seconds: 2.0,
        },
        Measure::ActivityClosed {
            activity: Some(ty("Charge", "2")),
            how: ActivityClosed::TimedOut(Cause::Heartbeat),
            schedule_to_close: Some(0.5),
            start_to_close: None,
        },
    ] {
        metrics.record(&labels, &order, measure);
    }
    let text = metrics.render(no_pending()).await;
    let run = r#"{tenant="acme",domain="orders",workflow_type="Order",workflow_version="1.0"}"#;
    let act = r#"{tenant="acme",domain="orders",activity_type="Charge",activity_version="2"}"#;
    for line in [
        format!("swf_workflows_started_total{run} 2"),
        format!("swf_workflows_timed_out_total{run} 1"),
        format!("swf_workflow_start_to_close_time_seconds_sum{run} 2.0"),
        format!("swf_started_activity_tasks_timed_out_on_heartbeat_total{act} 1"),
        format!("swf_activity_task_schedule_to_close_time_seconds_count{act} 1"),
    ] {
        assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
    }
    // Nothing timed start-to-close: the activity never started.
    assert!(!text.contains("swf_activity_task_start_to_close_time_seconds_count{"));
    assert!(text.ends_with("# EOF\n"));
}

#[tokio::test]
async fn registered_types_show_at_zero_and_types_past_the_cap_count_as_other() {
    let metrics = Metrics::default();
    let stored = Pending {
        domains: HashMap::from([(7, ("000000000000".to_owned(), "orders".to_owned()))]),
        queued: Vec::new(),
        types: vec![
            (7, Kind::Workflow, ty("Order", "1")),
            (7, Kind::Activity, ty("Charge", "1")),
        ],
        pinned: Vec::new(),
        schedules: Vec::new(),
        lists_paused: Vec::new(),
    };
    let text = metrics.render(Some(stored)).await;
    for line in [
        r#"swf_workflows_started_total{domain="orders",workflow_type="Order",workflow_version="1"} 0"#,
        r#"swf_decision_tasks_completed_total{domain="orders",workflow_type="Order",workflow_version="1"} 0"#,
        r#"swf_activity_tasks_failed_total{domain="orders",activity_type="Charge",activity_version="1"} 0"#,
    ] {
        assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
    }
    let labels = metrics.domain_labels("000000000000", "orders");
    for i in 0..swf::MAX_TYPE_SERIES + 3 {
        metrics.record(
            &labels,
            &ty(&format!("t{i}"), "1"),
            Measure::WorkflowStarted,
        );
    }
    let text = metrics.render(no_pending()).await;
    let started = |l: &&str| l.starts_with("swf_workflows_started_total{");
    assert_eq!(
        text.lines().filter(started).count(),
        swf::MAX_TYPE_SERIES,
        "Order and the types up to the cap (less Charge's place), and (other)"
    );
    let other = r#"swf_workflows_started_total{domain="orders",workflow_type="(other)",workflow_version="(other)"} 5"#;
    assert!(text.lines().any(|l| l == other), "{text}");
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
        types: Vec::new(),
        pinned: Vec::new(),
        schedules: Vec::new(),
        lists_paused: Vec::new(),
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
        types: Vec::new(),
        pinned: Vec::new(),
        schedules: Vec::new(),
        lists_paused: Vec::new(),
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
