//! Everything acknowledged survives a restart of the server on the same data directory.

use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::types::{
    ActivityType, RegistrationStatus, ResourceTag, TaskList, WorkflowType,
};

use crate::common::register_domain;

#[tokio::test]
async fn registrations_tags_and_deprecations_survive_a_restart() {
    let server = TestServer::start().await;
    let c = server.client();
    c.register_domain()
        .name("orders")
        .description("kept")
        .workflow_execution_retention_period_in_days("7")
        .tags(
            ResourceTag::builder()
                .key("team")
                .value("shop")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    c.register_domain()
        .name("old")
        .workflow_execution_retention_period_in_days("NONE")
        .send()
        .await
        .unwrap();
    c.deprecate_domain().name("old").send().await.unwrap();
    c.register_workflow_type()
        .domain("orders")
        .name("order")
        .version("1")
        .default_task_list(TaskList::builder().name("deciders").build().unwrap())
        .send()
        .await
        .unwrap();
    c.register_activity_type()
        .domain("orders")
        .name("charge")
        .version("1")
        .send()
        .await
        .unwrap();
    c.deprecate_activity_type()
        .domain("orders")
        .activity_type(
            ActivityType::builder()
                .name("charge")
                .version("1")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let before = c
        .describe_workflow_type()
        .domain("orders")
        .workflow_type(
            WorkflowType::builder()
                .name("order")
                .version("1")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();

    let server = server.restart().await;
    let c = server.client();

    let domain = c.describe_domain().name("orders").send().await.unwrap();
    assert_eq!(domain.domain_info().unwrap().description(), Some("kept"));
    let config = domain.configuration().unwrap();
    assert_eq!(config.workflow_execution_retention_period_in_days(), "7");
    let deprecated = c
        .list_domains()
        .registration_status(RegistrationStatus::Deprecated)
        .send()
        .await
        .unwrap();
    assert_eq!(deprecated.domain_infos()[0].name(), "old");
    let tags = c
        .list_tags_for_resource()
        .resource_arn("arn:aws:swf:us-east-1:000000000000:/domain/orders")
        .send()
        .await
        .unwrap();
    assert_eq!(tags.tags()[0].value(), Some("shop"));

    let after = c
        .describe_workflow_type()
        .domain("orders")
        .workflow_type(
            WorkflowType::builder()
                .name("order")
                .version("1")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(after.type_info(), before.type_info());
    assert_eq!(after.configuration(), before.configuration());
    let activity = c
        .describe_activity_type()
        .domain("orders")
        .activity_type(
            ActivityType::builder()
                .name("charge")
                .version("1")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(
        activity.type_info().unwrap().status(),
        &RegistrationStatus::Deprecated
    );
}

#[tokio::test]
async fn every_acknowledged_concurrent_write_is_kept() {
    let server = TestServer::start().await;
    let c = server.client();
    register_domain(&c, "d").await;
    let writes: Vec<_> = (0..200)
        .map(|i| {
            let c = c.clone();
            tokio::spawn(async move {
                c.register_activity_type()
                    .domain("d")
                    .name(format!("a{i:03}"))
                    .version("1")
                    .send()
                    .await
                    .unwrap();
            })
        })
        .collect();
    for write in writes {
        write.await.unwrap();
    }

    let server = server.restart().await;
    let pages: Vec<_> = server
        .client()
        .list_activity_types()
        .domain("d")
        .registration_status(RegistrationStatus::Registered)
        .into_paginator()
        .send()
        .collect::<Result<_, _>>()
        .await
        .unwrap();
    let names: Vec<_> = pages
        .iter()
        .flat_map(|page| page.type_infos())
        .map(|t| t.activity_type().unwrap().name().to_owned())
        .collect();
    let expected: Vec<_> = (0..200).map(|i| format!("a{i:03}")).collect();
    assert_eq!(names, expected);
}

#[tokio::test]
async fn page_tokens_outlive_a_restart() {
    let server = TestServer::start().await;
    let c = server.client();
    for name in ["a", "b"] {
        register_domain(&c, name).await;
    }
    let first = c
        .list_domains()
        .registration_status(RegistrationStatus::Registered)
        .maximum_page_size(1)
        .send()
        .await
        .unwrap();
    let token = first.next_page_token().unwrap().to_owned();

    let server = server.restart().await;
    let second = server
        .client()
        .list_domains()
        .registration_status(RegistrationStatus::Registered)
        .maximum_page_size(1)
        .next_page_token(token)
        .send()
        .await
        .unwrap();
    assert_eq!(second.domain_infos()[0].name(), "b");
    assert_eq!(second.next_page_token(), None);
}
