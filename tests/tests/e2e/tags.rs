//! TagResource, UntagResource, ListTagsForResource.

use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::ResourceTag;

use crate::common::expect_fault;

const ARN: &str = "arn:aws:swf:us-east-1:000000000000:/domain/d";

fn tag(key: &str, value: &str) -> ResourceTag {
    ResourceTag::builder()
        .key(key)
        .value(value)
        .build()
        .unwrap()
}

async fn tags(c: &Client) -> Vec<(String, String)> {
    c.list_tags_for_resource()
        .resource_arn(ARN)
        .send()
        .await
        .unwrap()
        .tags()
        .iter()
        .map(|t| (t.key().to_owned(), t.value().unwrap_or_default().to_owned()))
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

async fn server_with_domain(initial: Vec<ResourceTag>) -> (TestServer, Client) {
    let server = TestServer::start().await;
    let c = server.client();
    c.register_domain()
        .name("d")
        .workflow_execution_retention_period_in_days("1")
        .set_tags(Some(initial))
        .send()
        .await
        .unwrap();
    (server, c)
}

#[tokio::test]
async fn tag_list_and_untag() {
    let (_server, c) = server_with_domain(vec![tag("team", "shop")]).await;
    assert_eq!(tags(&c).await, pairs(&[("team", "shop")]));

    c.tag_resource()
        .resource_arn(ARN)
        .tags(tag("env", "prod"))
        .tags(tag("team", "payments"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        tags(&c).await,
        pairs(&[("team", "payments"), ("env", "prod")])
    );

    c.untag_resource()
        .resource_arn(ARN)
        .tag_keys("team")
        .tag_keys("absent")
        .send()
        .await
        .unwrap();
    assert_eq!(tags(&c).await, pairs(&[("env", "prod")]));

    // A tag without a value is kept as such.
    c.tag_resource()
        .resource_arn(ARN)
        .tags(ResourceTag::builder().key("flag").build().unwrap())
        .send()
        .await
        .unwrap();
    let listed = c
        .list_tags_for_resource()
        .resource_arn(ARN)
        .send()
        .await
        .unwrap();
    assert_eq!(listed.tags()[1].key(), "flag");
    assert_eq!(listed.tags()[1].value(), None);
}

#[tokio::test]
async fn at_most_fifty_tags_per_domain() {
    let (_server, c) = server_with_domain(vec![]).await;
    let fifty: Vec<_> = (0..50).map(|i| tag(&format!("k{i}"), "v")).collect();
    let mut fifty_one = fifty.clone();
    fifty_one.push(tag("k50", "v"));

    let err = c
        .register_domain()
        .name("crowded")
        .workflow_execution_retention_period_in_days("1")
        .set_tags(Some(fifty_one))
        .send()
        .await
        .unwrap_err();
    assert!(err.into_service_error().is_too_many_tags_fault());

    c.tag_resource()
        .resource_arn(ARN)
        .set_tags(Some(fifty))
        .send()
        .await
        .unwrap();
    // Replacing a value adds no tag; a new key would be the 51st.
    c.tag_resource()
        .resource_arn(ARN)
        .tags(tag("k0", "w"))
        .send()
        .await
        .unwrap();
    let err = c
        .tag_resource()
        .resource_arn(ARN)
        .tags(tag("k50", "v"))
        .send()
        .await
        .unwrap_err();
    assert!(err.into_service_error().is_too_many_tags_fault());
    assert_eq!(tags(&c).await.len(), 50);
}

#[tokio::test]
async fn arns_that_name_no_domain_of_the_caller_are_unknown() {
    let (_server, c) = server_with_domain(vec![]).await;
    for arn in [
        "arn:aws:swf:us-east-1:000000000000:/domain/other",
        "arn:aws:swf:eu-west-1:000000000000:/domain/d",
        "arn:aws:swf:us-east-1:999999999999:/domain/d",
        "arn:aws:sqs:us-east-1:000000000000:/domain/d",
        "not-an-arn",
    ] {
        let err = c
            .list_tags_for_resource()
            .resource_arn(arn)
            .send()
            .await
            .unwrap_err();
        assert!(
            err.into_service_error().is_unknown_resource_fault(),
            "{arn}"
        );
        expect_fault(
            c.tag_resource()
                .resource_arn(arn)
                .tags(tag("k", "v"))
                .send()
                .await,
            "UnknownResourceFault",
        );
        expect_fault(
            c.untag_resource()
                .resource_arn(arn)
                .tag_keys("k")
                .send()
                .await,
            "UnknownResourceFault",
        );
    }
}

#[tokio::test]
async fn tags_use_letters_digits_spaces_and_a_few_symbols() {
    let (_server, c) = server_with_domain(vec![]).await;
    c.tag_resource()
        .resource_arn(ARN)
        .tags(tag("Ünïcode key 1", "a_b.c:d/e=f+g-h@i"))
        .send()
        .await
        .unwrap();
    for (key, value, member) in [
        ("semi;colon", "v", "tags.1.member.key"),
        ("k", "hash#tag", "tags.1.member.value"),
    ] {
        let message = expect_fault(
            c.tag_resource()
                .resource_arn(ARN)
                .tags(tag(key, value))
                .send()
                .await,
            "ValidationException",
        );
        assert!(message.contains(&format!("at '{member}'")), "{message}");
    }
    let message = expect_fault(
        c.tag_resource()
            .resource_arn(ARN)
            .tags(tag(&"k".repeat(129), "v"))
            .send()
            .await,
        "ValidationException",
    );
    assert!(
        message.contains("length less than or equal to 128"),
        "{message}"
    );
}
