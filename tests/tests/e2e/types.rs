//! Register, Describe, List, Deprecate, Undeprecate and Delete for workflow and activity types.

use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::{
    ActivityType, ChildPolicy, RegistrationStatus, TaskList, WorkflowType,
};

use crate::common::{expect_fault, fault, register_domain};

/// One of the two kinds of type, driving the matching SDK calls.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Workflow,
    Activity,
}

/// What a failed call answered: its error code.
type Outcome<T> = Result<T, String>;

fn code<T: std::fmt::Debug, E, R>(
    result: Result<T, weft_tests::aws_sdk_swf::error::SdkError<E, R>>,
) -> Outcome<T>
where
    E: weft_tests::aws_sdk_swf::error::ProvideErrorMetadata + std::fmt::Debug,
    R: std::fmt::Debug,
{
    match result {
        Ok(v) => Ok(v),
        Err(e) => Err(fault(Err::<T, _>(e)).0),
    }
}

impl Kind {
    async fn register(self, c: &Client, domain: &str, name: &str, version: &str) -> Outcome<()> {
        match self {
            Kind::Workflow => code(
                c.register_workflow_type()
                    .domain(domain)
                    .name(name)
                    .version(version)
                    .send()
                    .await,
            )
            .map(drop),
            Kind::Activity => code(
                c.register_activity_type()
                    .domain(domain)
                    .name(name)
                    .version(version)
                    .send()
                    .await,
            )
            .map(drop),
        }
    }

    async fn deprecate(self, c: &Client, domain: &str, name: &str, version: &str) -> Outcome<()> {
        match self {
            Kind::Workflow => code(
                c.deprecate_workflow_type()
                    .domain(domain)
                    .workflow_type(wf(name, version))
                    .send()
                    .await,
            )
            .map(drop),
            Kind::Activity => code(
                c.deprecate_activity_type()
                    .domain(domain)
                    .activity_type(act(name, version))
                    .send()
                    .await,
            )
            .map(drop),
        }
    }

    async fn undeprecate(self, c: &Client, domain: &str, name: &str, version: &str) -> Outcome<()> {
        match self {
            Kind::Workflow => code(
                c.undeprecate_workflow_type()
                    .domain(domain)
                    .workflow_type(wf(name, version))
                    .send()
                    .await,
            )
            .map(drop),
            Kind::Activity => code(
                c.undeprecate_activity_type()
                    .domain(domain)
                    .activity_type(act(name, version))
                    .send()
                    .await,
            )
            .map(drop),
        }
    }

    async fn delete(self, c: &Client, domain: &str, name: &str, version: &str) -> Outcome<()> {
        match self {
            Kind::Workflow => code(
                c.delete_workflow_type()
                    .domain(domain)
                    .workflow_type(wf(name, version))
                    .send()
                    .await,
            )
            .map(drop),
            Kind::Activity => code(
                c.delete_activity_type()
                    .domain(domain)
                    .activity_type(act(name, version))
                    .send()
                    .await,
            )
            .map(drop),
        }
    }

    /// The type's status and whether it reports a deprecation date.
    async fn status(
        self,
        c: &Client,
        domain: &str,
        name: &str,
        version: &str,
    ) -> Outcome<(RegistrationStatus, bool)> {
        match self {
            Kind::Workflow => code(
                c.describe_workflow_type()
                    .domain(domain)
                    .workflow_type(wf(name, version))
                    .send()
                    .await,
            )
            .map(|d| {
                let info = d.type_info().unwrap();
                (info.status().clone(), info.deprecation_date().is_some())
            }),
            Kind::Activity => code(
                c.describe_activity_type()
                    .domain(domain)
                    .activity_type(act(name, version))
                    .send()
                    .await,
            )
            .map(|d| {
                let info = d.type_info().unwrap();
                (info.status().clone(), info.deprecation_date().is_some())
            }),
        }
    }

    /// One page of `name@version` strings and the next page token.
    async fn list(
        self,
        c: &Client,
        domain: &str,
        q: &Listing<'_>,
        token: Option<String>,
    ) -> Outcome<(Vec<String>, Option<String>)> {
        let Listing {
            status,
            name,
            page_size,
            reverse,
        } = q.clone();
        match self {
            Kind::Workflow => code(
                c.list_workflow_types()
                    .domain(domain)
                    .registration_status(status)
                    .set_name(name.map(str::to_owned))
                    .maximum_page_size(page_size)
                    .reverse_order(reverse)
                    .set_next_page_token(token)
                    .send()
                    .await,
            )
            .map(|out| {
                let names = out
                    .type_infos()
                    .iter()
                    .map(|i| {
                        let t = i.workflow_type().unwrap();
                        format!("{}@{}", t.name(), t.version())
                    })
                    .collect();
                (names, out.next_page_token().map(str::to_owned))
            }),
            Kind::Activity => code(
                c.list_activity_types()
                    .domain(domain)
                    .registration_status(status)
                    .set_name(name.map(str::to_owned))
                    .maximum_page_size(page_size)
                    .reverse_order(reverse)
                    .set_next_page_token(token)
                    .send()
                    .await,
            )
            .map(|out| {
                let names = out
                    .type_infos()
                    .iter()
                    .map(|i| {
                        let t = i.activity_type().unwrap();
                        format!("{}@{}", t.name(), t.version())
                    })
                    .collect();
                (names, out.next_page_token().map(str::to_owned))
            }),
        }
    }

    /// Every `name@version` of `status`, read in pages of `page_size`.
    async fn list_all(
        self,
        c: &Client,
        domain: &str,
        status: RegistrationStatus,
        page_size: i32,
        reverse: bool,
    ) -> Vec<String> {
        let mut all = Vec::new();
        let mut token = None;
        loop {
            let q = Listing {
                status: status.clone(),
                name: None,
                page_size,
                reverse,
            };
            let (names, next) = self.list(c, domain, &q, token).await.unwrap();
            all.extend(names);
            match next {
                Some(next) => token = Some(next),
                None => return all,
            }
        }
    }
}

/// The arguments of a List*Types call besides the domain and the page token.
#[derive(Clone)]
struct Listing<'a> {
    status: RegistrationStatus,
    name: Option<&'a str>,
    page_size: i32,
    reverse: bool,
}

fn registered(name: Option<&str>, page_size: i32) -> Listing<'_> {
    Listing {
        status: RegistrationStatus::Registered,
        name,
        page_size,
        reverse: false,
    }
}

fn wf(name: &str, version: &str) -> WorkflowType {
    WorkflowType::builder()
        .name(name)
        .version(version)
        .build()
        .unwrap()
}

fn act(name: &str, version: &str) -> ActivityType {
    ActivityType::builder()
        .name(name)
        .version(version)
        .build()
        .unwrap()
}

async fn server_with_domain() -> (TestServer, Client) {
    let server = TestServer::start().await;
    let client = server.client();
    register_domain(&client, "d").await;
    (server, client)
}

const KINDS: [Kind; 2] = [Kind::Workflow, Kind::Activity];

#[tokio::test]
async fn life_cycle_with_every_fault() {
    let (_server, c) = server_with_domain().await;
    for kind in KINDS {
        let registered = Ok((RegistrationStatus::Registered, false));
        let deprecated = Ok((RegistrationStatus::Deprecated, true));
        kind.register(&c, "d", "t", "1").await.unwrap();
        assert_eq!(kind.status(&c, "d", "t", "1").await, registered, "{kind:?}");
        assert_eq!(
            kind.register(&c, "d", "t", "1").await,
            Err("TypeAlreadyExistsFault".into())
        );
        assert_eq!(
            kind.undeprecate(&c, "d", "t", "1").await,
            Err("TypeAlreadyExistsFault".into())
        );
        assert_eq!(
            kind.delete(&c, "d", "t", "1").await,
            Err("TypeNotDeprecatedFault".into())
        );

        kind.deprecate(&c, "d", "t", "1").await.unwrap();
        assert_eq!(kind.status(&c, "d", "t", "1").await, deprecated, "{kind:?}");
        assert_eq!(
            kind.deprecate(&c, "d", "t", "1").await,
            Err("TypeDeprecatedFault".into())
        );
        assert_eq!(
            kind.register(&c, "d", "t", "1").await,
            Err("TypeAlreadyExistsFault".into())
        );

        kind.undeprecate(&c, "d", "t", "1").await.unwrap();
        assert_eq!(kind.status(&c, "d", "t", "1").await, registered);

        kind.deprecate(&c, "d", "t", "1").await.unwrap();
        kind.delete(&c, "d", "t", "1").await.unwrap();
        assert_eq!(
            kind.status(&c, "d", "t", "1").await,
            Err("UnknownResourceFault".into())
        );
        assert_eq!(
            kind.delete(&c, "d", "t", "1").await,
            Err("UnknownResourceFault".into())
        );
        // A deleted name and version can be registered again.
        kind.register(&c, "d", "t", "1").await.unwrap();
        assert_eq!(kind.status(&c, "d", "t", "1").await, registered);
    }
}

#[tokio::test]
async fn unknown_domains_and_types() {
    let (_server, c) = server_with_domain().await;
    let unknown = || Err::<(), String>("UnknownResourceFault".into());
    for kind in KINDS {
        assert_eq!(kind.register(&c, "nope", "t", "1").await, unknown());
        assert_eq!(kind.deprecate(&c, "d", "nope", "1").await, unknown());
        assert_eq!(kind.undeprecate(&c, "d", "nope", "1").await, unknown());
        assert_eq!(kind.delete(&c, "nope", "t", "1").await, unknown());
        assert_eq!(kind.status(&c, "d", "nope", "1").await.map(drop), unknown());
        let listed = kind.list(&c, "nope", &registered(None, 10), None).await;
        assert_eq!(listed.map(drop), unknown());
    }
    let message = expect_fault(
        c.describe_workflow_type()
            .domain("d")
            .workflow_type(wf("w", "9"))
            .send()
            .await,
        "UnknownResourceFault",
    );
    assert_eq!(message, "Unknown type: WorkflowType=[name=w, version=9]");
}

#[tokio::test]
async fn describe_returns_exactly_the_registered_defaults() {
    let (_server, c) = server_with_domain().await;
    c.register_workflow_type()
        .domain("d")
        .name("order")
        .version("1")
        .description("An order")
        .default_task_start_to_close_timeout("NONE")
        .default_execution_start_to_close_timeout("3600")
        .default_task_list(TaskList::builder().name("deciders").build().unwrap())
        .default_task_priority("-5")
        .default_child_policy(ChildPolicy::RequestCancel)
        .default_lambda_role("arn:aws:iam::000000000000:role/l")
        .send()
        .await
        .unwrap();
    let detail = c
        .describe_workflow_type()
        .domain("d")
        .workflow_type(wf("order", "1"))
        .send()
        .await
        .unwrap();
    let info = detail.type_info().unwrap();
    assert_eq!(info.description(), Some("An order"));
    assert!(info.creation_date().secs() > 1_700_000_000);
    let config = detail.configuration().unwrap();
    assert_eq!(config.default_task_start_to_close_timeout(), Some("NONE"));
    assert_eq!(
        config.default_execution_start_to_close_timeout(),
        Some("3600")
    );
    assert_eq!(config.default_task_list().unwrap().name(), "deciders");
    assert_eq!(config.default_task_priority(), Some("-5"));
    assert_eq!(
        config.default_child_policy(),
        Some(&ChildPolicy::RequestCancel)
    );
    assert_eq!(
        config.default_lambda_role(),
        Some("arn:aws:iam::000000000000:role/l")
    );

    c.register_activity_type()
        .domain("d")
        .name("charge")
        .version("1")
        .default_task_heartbeat_timeout("30")
        .default_task_schedule_to_close_timeout("NONE")
        // Empty optional durations read as "not set".
        .default_task_schedule_to_start_timeout("")
        .send()
        .await
        .unwrap();
    let detail = c
        .describe_activity_type()
        .domain("d")
        .activity_type(act("charge", "1"))
        .send()
        .await
        .unwrap();
    let config = detail.configuration().unwrap();
    assert_eq!(config.default_task_heartbeat_timeout(), Some("30"));
    assert_eq!(
        config.default_task_schedule_to_close_timeout(),
        Some("NONE")
    );
    assert_eq!(config.default_task_schedule_to_start_timeout(), None);
    assert_eq!(config.default_task_start_to_close_timeout(), None);
    assert_eq!(config.default_task_list(), None);
    assert_eq!(config.default_task_priority(), None);
    assert_eq!(detail.type_info().unwrap().description(), None);
}

#[tokio::test]
async fn defaults_follow_the_prose_rules() {
    let (_server, c) = server_with_domain().await;
    let cases = [
        (
            c.register_workflow_type()
                .default_execution_start_to_close_timeout("NONE"),
            "defaultExecutionStartToCloseTimeout",
        ),
        (
            c.register_workflow_type()
                .default_task_start_to_close_timeout("31536001"),
            "defaultTaskStartToCloseTimeout",
        ),
        (
            c.register_workflow_type().default_task_priority("urgent"),
            "defaultTaskPriority",
        ),
        (
            c.register_workflow_type()
                .default_task_list(TaskList::builder().name("a:b").build().unwrap()),
            "defaultTaskList.name",
        ),
    ];
    for (call, member) in cases {
        let message = expect_fault(
            call.domain("d").name("w").version("1").send().await,
            "ValidationException",
        );
        assert!(message.contains(&format!("at '{member}'")), "{message}");
    }
    // A type name against the name rule: AWS's own words, as quoted from AWS.
    let message = expect_fault(
        c.register_activity_type()
            .domain("d")
            .name("a|b")
            .version("1")
            .default_task_heartbeat_timeout("soon")
            .send()
            .await,
        "ValidationException",
    );
    assert_eq!(message, "Invalid name: a|b");
    let message = expect_fault(
        c.register_activity_type()
            .domain("d")
            .name("ab")
            .version("1:0")
            .default_task_heartbeat_timeout("soon")
            .send()
            .await,
        "ValidationException",
    );
    assert!(
        message.starts_with("2 validation errors detected"),
        "{message}"
    );
    assert!(
        message.contains("at 'version'") && message.contains("at 'defaultTaskHeartbeatTimeout'")
    );
}

#[tokio::test]
async fn a_deprecated_domain_deprecates_its_types_until_undeprecated() {
    let (_server, c) = server_with_domain().await;
    for kind in KINDS {
        kind.register(&c, "d", "kept", "1").await.unwrap();
        kind.register(&c, "d", "own", "1").await.unwrap();
        kind.deprecate(&c, "d", "own", "1").await.unwrap();
    }
    c.deprecate_domain().name("d").send().await.unwrap();
    for kind in KINDS {
        let deprecated = kind
            .list_all(&c, "d", RegistrationStatus::Deprecated, 10, false)
            .await;
        assert_eq!(deprecated, ["kept@1", "own@1"], "{kind:?}");
        assert_eq!(
            kind.status(&c, "d", "kept", "1").await,
            Ok((RegistrationStatus::Deprecated, true))
        );
        assert_eq!(
            kind.register(&c, "d", "new", "1").await,
            Err("DomainDeprecatedFault".into())
        );
        assert_eq!(
            kind.deprecate(&c, "d", "kept", "1").await,
            Err("TypeDeprecatedFault".into())
        );
        assert_eq!(
            kind.undeprecate(&c, "d", "kept", "1").await,
            Err("DomainDeprecatedFault".into())
        );
    }
    c.undeprecate_domain().name("d").send().await.unwrap();
    for kind in KINDS {
        let registered = kind
            .list_all(&c, "d", RegistrationStatus::Registered, 10, false)
            .await;
        assert_eq!(registered, ["kept@1"], "{kind:?}");
        let deprecated = kind
            .list_all(&c, "d", RegistrationStatus::Deprecated, 10, false)
            .await;
        assert_eq!(deprecated, ["own@1"], "{kind:?}");
    }
}

#[tokio::test]
async fn lists_filter_and_page_both_ways() {
    let (_server, c) = server_with_domain().await;
    for kind in KINDS {
        for (name, version) in [("b", "2"), ("a", "1"), ("b", "1"), ("c", "1"), ("a", "2")] {
            kind.register(&c, "d", name, version).await.unwrap();
        }
        kind.register(&c, "d", "z", "old").await.unwrap();
        kind.deprecate(&c, "d", "z", "old").await.unwrap();

        let forward = kind
            .list_all(&c, "d", RegistrationStatus::Registered, 2, false)
            .await;
        assert_eq!(forward, ["a@1", "a@2", "b@1", "b@2", "c@1"], "{kind:?}");
        let backward = kind
            .list_all(&c, "d", RegistrationStatus::Registered, 2, true)
            .await;
        assert_eq!(backward, ["c@1", "b@2", "b@1", "a@2", "a@1"]);

        let (named, token) = kind
            .list(&c, "d", &registered(Some("b"), 1), None)
            .await
            .unwrap();
        assert_eq!(named, ["b@1"]);
        let (rest, none) = kind
            .list(&c, "d", &registered(Some("b"), 1), token.clone())
            .await
            .unwrap();
        assert_eq!((rest, none), (vec!["b@2".to_owned()], None));
        // The token belongs to the name-filtered query.
        let other = kind.list(&c, "d", &registered(Some("a"), 1), token).await;
        assert_eq!(other, Err("ValidationException".into()));
    }
}

#[tokio::test]
async fn the_type_limit_counts_deprecated_types_but_not_deleted_ones() {
    let server = TestServer::start_with(|config| config.limits.max_types_per_kind = 3).await;
    let c = server.client();
    register_domain(&c, "d").await;
    for kind in KINDS {
        for version in ["1", "2", "3"] {
            kind.register(&c, "d", "t", version).await.unwrap();
        }
        kind.deprecate(&c, "d", "t", "1").await.unwrap();
        assert_eq!(
            kind.register(&c, "d", "t", "4").await,
            Err("LimitExceededFault".into())
        );
        kind.delete(&c, "d", "t", "1").await.unwrap();
        kind.register(&c, "d", "t", "4").await.unwrap();
    }
}
