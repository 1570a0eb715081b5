//! RegisterDomain, DescribeDomain, ListDomains, DeprecateDomain, UndeprecateDomain.

use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::{RegistrationStatus, ResourceTag};

use crate::common::{expect_fault, register_domain as register};

async fn list(client: &Client, status: RegistrationStatus, reverse: bool) -> Vec<String> {
    client
        .list_domains()
        .registration_status(status)
        .reverse_order(reverse)
        .send()
        .await
        .unwrap()
        .domain_infos()
        .iter()
        .map(|d| d.name().to_owned())
        .collect()
}

#[tokio::test]
async fn register_then_describe_and_list() {
    let server = TestServer::start().await;
    let client = server.client();
    client
        .register_domain()
        .name("orders")
        .description("Order processing")
        .workflow_execution_retention_period_in_days("30")
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

    let detail = client
        .describe_domain()
        .name("orders")
        .send()
        .await
        .unwrap();
    let info = detail.domain_info().unwrap();
    assert_eq!(info.name(), "orders");
    assert_eq!(info.status(), &RegistrationStatus::Registered);
    assert_eq!(info.description(), Some("Order processing"));
    assert_eq!(
        info.arn(),
        Some("arn:aws:swf:us-east-1:000000000000:/domain/orders")
    );
    assert_eq!(
        detail
            .configuration()
            .unwrap()
            .workflow_execution_retention_period_in_days(),
        "30"
    );

    assert_eq!(
        list(&client, RegistrationStatus::Registered, false).await,
        ["orders"]
    );
    assert!(
        list(&client, RegistrationStatus::Deprecated, false)
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn retention_accepts_none_zero_and_up_to_ninety_days() {
    let server = TestServer::start().await;
    let client = server.client();
    for (name, days) in [("a", "NONE"), ("b", "0"), ("c", "90")] {
        client
            .register_domain()
            .name(name)
            .workflow_execution_retention_period_in_days(days)
            .send()
            .await
            .unwrap();
        let detail = client.describe_domain().name(name).send().await.unwrap();
        let configuration = detail.configuration().unwrap();
        assert_eq!(
            configuration.workflow_execution_retention_period_in_days(),
            days
        );
    }
    for days in ["91", "-1", "seven", "1.5"] {
        let message = expect_fault(
            client
                .register_domain()
                .name("d")
                .workflow_execution_retention_period_in_days(days)
                .send()
                .await,
            "ValidationException",
        );
        assert!(
            message.contains("at 'workflowExecutionRetentionPeriodInDays'"),
            "{message}"
        );
    }
}

#[tokio::test]
async fn a_name_is_taken_whatever_the_status() {
    let server = TestServer::start().await;
    let client = server.client();
    register(&client, "d").await;
    let err = client
        .register_domain()
        .name("d")
        .workflow_execution_retention_period_in_days("1")
        .send()
        .await
        .unwrap_err();
    assert!(err.into_service_error().is_domain_already_exists_fault());

    client.deprecate_domain().name("d").send().await.unwrap();
    expect_fault(
        client
            .register_domain()
            .name("d")
            .workflow_execution_retention_period_in_days("1")
            .send()
            .await,
        "DomainAlreadyExistsFault",
    );
}

#[tokio::test]
async fn deprecate_and_undeprecate() {
    let server = TestServer::start().await;
    let client = server.client();
    register(&client, "d").await;

    client.deprecate_domain().name("d").send().await.unwrap();
    let info = client.describe_domain().name("d").send().await.unwrap();
    assert_eq!(
        info.domain_info().unwrap().status(),
        &RegistrationStatus::Deprecated
    );
    assert_eq!(
        list(&client, RegistrationStatus::Deprecated, false).await,
        ["d"]
    );
    assert!(
        list(&client, RegistrationStatus::Registered, false)
            .await
            .is_empty()
    );
    let err = client
        .deprecate_domain()
        .name("d")
        .send()
        .await
        .unwrap_err();
    assert!(err.into_service_error().is_domain_deprecated_fault());

    client.undeprecate_domain().name("d").send().await.unwrap();
    assert_eq!(
        list(&client, RegistrationStatus::Registered, false).await,
        ["d"]
    );
    let err = client
        .undeprecate_domain()
        .name("d")
        .send()
        .await
        .unwrap_err();
    assert!(err.into_service_error().is_domain_already_exists_fault());
}

#[tokio::test]
async fn unknown_domains() {
    let server = TestServer::start().await;
    let client = server.client();
    let message = expect_fault(
        client.describe_domain().name("nope").send().await,
        "UnknownResourceFault",
    );
    assert_eq!(message, "Unknown domain: nope");
    let err = client
        .deprecate_domain()
        .name("nope")
        .send()
        .await
        .unwrap_err();
    assert!(err.into_service_error().is_unknown_resource_fault());
    expect_fault(
        client.undeprecate_domain().name("nope").send().await,
        "UnknownResourceFault",
    );
}

#[tokio::test]
async fn names_follow_the_naming_rule() {
    let server = TestServer::start().await;
    let client = server.client();
    for name in [
        "a:b",
        "a/b",
        "a|b",
        "arn",
        " lead",
        "trail ",
        "tab\there",
        "\u{85}",
    ] {
        let message = expect_fault(
            client
                .register_domain()
                .name(name)
                .workflow_execution_retention_period_in_days("1")
                .send()
                .await,
            "ValidationException",
        );
        assert!(
            message.contains("at 'name' failed to satisfy constraint"),
            "{message}"
        );
    }
    // Unicode letters and inner spaces are fine, and lengths count characters.
    register(&client, "Bestellungen für Köln").await;
    register(&client, &"é".repeat(256)).await;
}

#[tokio::test]
async fn at_most_one_hundred_domains_registered_or_deprecated() {
    let server = TestServer::start().await;
    let client = server.client();
    let registrations: Vec<_> = (0..100)
        .map(|i| {
            let client = client.clone();
            tokio::spawn(async move { register(&client, &format!("d{i:03}")).await })
        })
        .collect();
    for registration in registrations {
        registration.await.unwrap();
    }
    client.deprecate_domain().name("d000").send().await.unwrap();
    let err = client
        .register_domain()
        .name("one-too-many")
        .workflow_execution_retention_period_in_days("1")
        .send()
        .await
        .unwrap_err();
    assert!(err.into_service_error().is_limit_exceeded_fault());
}

#[tokio::test]
async fn pages_forward_and_in_reverse() {
    let server = TestServer::start().await;
    let client = server.client();
    let names: Vec<String> = (0..7).map(|i| format!("d{i}")).collect();
    for name in names.iter().rev() {
        register(&client, name).await;
    }

    for reverse in [false, true] {
        let mut seen = Vec::new();
        let mut token = None;
        let mut pages = 0;
        loop {
            let page = client
                .list_domains()
                .registration_status(RegistrationStatus::Registered)
                .maximum_page_size(3)
                .reverse_order(reverse)
                .set_next_page_token(token)
                .send()
                .await
                .unwrap();
            pages += 1;
            assert!(page.domain_infos().len() <= 3);
            seen.extend(page.domain_infos().iter().map(|d| d.name().to_owned()));
            token = page.next_page_token().map(str::to_owned);
            if token.is_none() {
                break;
            }
        }
        let mut expected = names.clone();
        if reverse {
            expected.reverse();
        }
        assert_eq!(seen, expected);
        assert_eq!(pages, 3);
    }

    // The SDK's paginator walks the same pages.
    let all: Vec<_> = client
        .list_domains()
        .registration_status(RegistrationStatus::Registered)
        .maximum_page_size(2)
        .into_paginator()
        .items()
        .send()
        .collect::<Result<Vec<_>, _>>()
        .await
        .unwrap();
    assert_eq!(all.len(), 7);

    // An exact page leaves no token behind.
    let page = client
        .list_domains()
        .registration_status(RegistrationStatus::Registered)
        .maximum_page_size(7)
        .send()
        .await
        .unwrap();
    assert_eq!(page.domain_infos().len(), 7);
    assert_eq!(page.next_page_token(), None);
}

#[tokio::test]
async fn page_tokens_belong_to_their_query() {
    let server = TestServer::start().await;
    let client = server.client();
    for name in ["a", "b", "c"] {
        register(&client, name).await;
    }
    let page = client
        .list_domains()
        .registration_status(RegistrationStatus::Registered)
        .maximum_page_size(1)
        .send()
        .await
        .unwrap();
    let token = page.next_page_token().unwrap().to_owned();

    let message = expect_fault(
        client
            .list_domains()
            .registration_status(RegistrationStatus::Registered)
            .reverse_order(true)
            .next_page_token(&token)
            .send()
            .await,
        "ValidationException",
    );
    assert!(message.contains("other arguments"), "{message}");

    let mut forged = token.clone();
    forged.insert(3, 'x');
    expect_fault(
        client
            .list_domains()
            .registration_status(RegistrationStatus::Registered)
            .next_page_token(forged)
            .send()
            .await,
        "ValidationException",
    );
}

#[tokio::test]
async fn each_region_has_its_own_domains() {
    let server = TestServer::start().await;
    let east = server.client();
    let west = server.client_in("eu-west-1");
    register(&east, "shared").await;
    expect_fault(
        west.describe_domain().name("shared").send().await,
        "UnknownResourceFault",
    );
    register(&west, "shared").await;
    let detail = west.describe_domain().name("shared").send().await.unwrap();
    assert_eq!(
        detail.domain_info().unwrap().arn(),
        Some("arn:aws:swf:eu-west-1:000000000000:/domain/shared")
    );
    assert_eq!(
        list(&east, RegistrationStatus::Registered, false).await,
        ["shared"]
    );
}
