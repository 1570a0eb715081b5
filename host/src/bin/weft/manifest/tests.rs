//! The manifest's reading and checking, and the registrations it asks for.
use super::*;

#[test]
fn durations_read_as_swf_seconds() {
    assert_eq!(seconds("90").unwrap(), "90");
    assert_eq!(seconds("5m").unwrap(), "300");
    assert_eq!(seconds("2h").unwrap(), "7200");
    assert_eq!(seconds("1d").unwrap(), "86400");
    assert_eq!(seconds("none").unwrap(), "NONE");
    for bad in ["", "5 m", "1w", "-1", "m", "99999999999d"] {
        assert!(seconds(bad).is_err(), "{bad}");
    }
}

#[test]
fn defaults_tables_fill_what_each_type_leaves_out() {
    let text = r#"
        [domain]
        name = "greetings"
        [workflow-defaults]
        task-list = "decisions"
        task-timeout = "10s"
        [activity-defaults]
        task-list = "work"
        start-to-close = "30s"
        heartbeat = "NONE"
        [[workflow]]
        name = "Greeting"
        version = "1"
        [[activity]]
        name = "Greet"
        version = "1"
        [[activity]]
        name = "Slow"
        version = "1"
        start-to-close = "1h"
        [[module]]
        name = "greetings-decider"
        file = "decider.wasm"
        decisions = "decisions"
    "#;
    let manifest = Manifest::parse(text).unwrap();
    let workflow = &manifest.workflows[0];
    assert_eq!(workflow.task_list.as_deref(), Some("decisions"));
    assert_eq!(workflow.task_timeout.as_deref(), Some("10s"));
    let [greet, slow] = &manifest.activities[..] else {
        panic!("{:?}", manifest.activities)
    };
    assert_eq!(greet.start_to_close.as_deref(), Some("30s"));
    assert_eq!(slow.start_to_close.as_deref(), Some("1h"));
    assert_eq!(slow.task_list.as_deref(), Some("work"));
    assert_eq!(slow.heartbeat.as_deref(), Some("NONE"));
    let module = &manifest.modules[0];
    assert_eq!(module.label_name().as_deref(), Some("greetings-decider"));

    let typo = text.replace("heartbeat", "heartbeet");
    let error = Manifest::parse(&typo).unwrap_err();
    assert!(
        error.contains("[activity-defaults]") && error.contains("heartbeet"),
        "{error}"
    );
    let named = text.replace("heartbeat = \"NONE\"", "name = \"Greet\"");
    let error = Manifest::parse(&named).unwrap_err();
    assert!(
        error.contains("[activity-defaults] cannot set name"),
        "{error}"
    );
    let bad = text.replace("\"30s\"", "\"30x\"");
    let error = Manifest::parse(&bad).unwrap_err();
    assert!(error.contains("activity Greet:1 start-to-close"), "{error}");
}

#[test]
fn a_manifest_reads_and_says_what_to_fix() {
    let text = r#"
        [domain]
        name = "greetings"
        [[workflow]]
        name = "Greeting"
        version = "1"
        task-timeout = "10s"
        [[module]]
        file = "decider.wasm"
        decisions = "greeting-decisions"
    "#;
    let manifest = Manifest::parse(text).unwrap();
    assert_eq!(manifest.domain.retention_days, 1);
    assert_eq!(manifest.modules[0].upgrade, None);
    let replaying = text.replace("decisions = ", "upgrade = \"replay\"\ndecisions = ");
    let manifest = Manifest::parse(&replaying).unwrap();
    assert_eq!(manifest.modules[0].upgrade, Some(UpgradePolicy::Replay));
    assert_eq!(manifest.modules[0].inherit_pin, None);
    let inheriting = text.replace("decisions = ", "inherit-pin = true\ndecisions = ");
    let manifest = Manifest::parse(&inheriting).unwrap();
    assert_eq!(manifest.modules[0].inherit_pin, Some(true));
    let pausing = text.replace("decisions = ", "pause-after-failures = 5\ndecisions = ");
    let manifest = Manifest::parse(&pausing).unwrap();
    assert_eq!(manifest.modules[0].pause_after_failures, Some(5));
    let unknown = text.replace("decisions = ", "upgrade = \"sometimes\"\ndecisions = ");
    let error = Manifest::parse(&unknown).unwrap_err();
    assert!(
        error.contains("pinned") && error.contains("replay"),
        "{error}"
    );
    assert_eq!(manifest.only_workflow().unwrap().name, "Greeting");
    let typo = text.replace("task-timeout", "task-timout");
    assert!(Manifest::parse(&typo).unwrap_err().contains("task-timout"));
    let bad = text.replace("\"10s\"", "\"10x\"");
    let error = Manifest::parse(&bad).unwrap_err();
    assert!(
        error.contains("workflow Greeting:1 task-timeout"),
        "{error}"
    );
    let workflow = manifest.only_workflow().unwrap();
    let input = workflow.register("greetings");
    assert_eq!(
        input,
        json!({"domain": "greetings", "name": "Greeting", "version": "1",
            "defaultTaskStartToCloseTimeout": "10"})
    );
    let same = json!({"defaultTaskStartToCloseTimeout": "10"});
    assert_eq!(workflow.differences(&same), Vec::<String>::new());
    let other = json!({"defaultTaskStartToCloseTimeout": "20",
        "defaultTaskList": {"name": "x"}});
    assert_eq!(
        workflow.differences(&other),
        [
            "defaultTaskList is \"x\" on the server, none here",
            "defaultTaskStartToCloseTimeout is \"20\" on the server, \"10\" here",
        ]
    );
    let two = text.replace("decisions =", "function = \"f\"\ndecisions =");
    assert!(Manifest::parse(&two).unwrap_err().contains("exactly one"));
}

#[test]
fn a_schedule_reads_into_its_definition_and_a_bad_one_is_refused_by_name() {
    let manifest = |schedule: &str| {
        let text = format!(
            "[domain]\nname = \"d\"\n[[workflow]]\nname = \"Report\"\nversion = \"1\"\n\
             [[schedule]]\nid = \"nightly\"\ntype = \"Report:1\"\n{schedule}"
        );
        Manifest::parse(&text)
    };
    let read = manifest(
        "cron = [\"30 2 * * *\"]\ntime-zone = \"Europe/Berlin\"\noverlap = \"buffer-one\"\n\
         catchup-window = \"5m\"\ntags = [\"reports\"]\npriority = -7\n\
         lambda-role = \"arn:aws:iam::123456789012:role/lambda\"\n",
    )
    .unwrap();
    let definition = read.schedules[0].definition().unwrap();
    assert_eq!(definition.action.task_priority.as_deref(), Some("-7"));
    assert!(definition.action.lambda_role.is_some());
    assert_eq!(definition.spec.cron, ["30 2 * * *"]);
    assert_eq!(definition.spec.time_zone.as_deref(), Some("Europe/Berlin"));
    assert_eq!(definition.overlap, weft_host::client::Overlap::BufferOne);
    assert_eq!(definition.catchup_window, Some(300));
    assert_eq!(definition.action.workflow_type.name, "Report");
    for (bad, named) in [
        ("cron = [\"61 * * * *\"]\n", "spec.cron"),
        ("every = \"1h\"\ncron = [\"* * * * *\"]\n", "not both"),
        ("every = \"1w\"\n", "1w"),
        ("every = \"1h\"\noverlap = \"sometimes\"\n", "buffer-one"),
        ("", "spec.every"),
    ] {
        let refused = manifest(bad).unwrap_err();
        assert!(
            refused.contains("schedule nightly") && refused.contains(named),
            "{refused}"
        );
    }
}

#[test]
fn a_task_list_entry_sets_what_it_declares_and_removes_the_rest() {
    let manifest = |entry: &str| {
        let text = format!("[domain]\nname = \"d\"\n[[task-list]]\nname = \"work\"\n{entry}");
        Manifest::parse(&text)
    };
    let read = manifest(
        "kind = \"activity\"\nrate = 20\nfair-by-tag = \"tenant=\"\nweights = { acme = 3 }\n",
    )
    .unwrap();
    let entry = &read.task_lists[0];
    let request = entry.request().unwrap();
    assert_eq!(request.rate, Some(Some(20.0)));
    assert_eq!(request.concurrency, Some(None), "left out: removed");
    let fairness = request.fairness.clone().flatten().expect("keys");
    assert_eq!(
        (fairness.tag_prefix.as_str(), fairness.weights["acme"]),
        ("tenant=", 3)
    );
    assert!(!entry.matches(None));
    let held = weft_host::client::TaskListInfo {
        kind: weft_host::client::BindingKind::Activity,
        name: "work".into(),
        pending: 0,
        pollers: 0,
        bound: false,
        paused: None,
        rate: Some(20.0),
        concurrency: None,
        fairness: Some(fairness),
        keys: Vec::new(),
    };
    assert!(entry.matches(Some(&held)));
    for (bad, named) in [
        ("kind = \"sideways\"\n", "sideways"),
        (
            "kind = \"activity\"\nweights = { acme = 3 }\n",
            "fair-by-tag",
        ),
        (
            "kind = \"activity\"\n[[task-list]]\nname = \"work\"\nkind = \"activity\"\n",
            "twice",
        ),
    ] {
        let refused = manifest(bad).unwrap_err();
        assert!(
            refused.contains("task-list work") && refused.contains(named),
            "{refused}"
        );
    }
}
