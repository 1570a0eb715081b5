//! TagResource, UntagResource, ListTagsForResource: tags on domains, named by ARN (spec §4.6).

use serde::{Deserialize, Serialize};

use crate::fault::{Fault, Violations};
use crate::model::{Domain, DomainArn, Empty, ResourceTag};
use crate::store::Reads;

use super::{Ctx, Service};

/// `TagResourceInput`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TagResourceInput {
    resource_arn: String,
    tags: Vec<ResourceTag>,
}

/// `UntagResourceInput`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct UntagResourceInput {
    resource_arn: String,
    tag_keys: Vec<String>,
}

/// `ListTagsForResourceInput`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListTagsForResourceInput {
    resource_arn: String,
}

/// `ListTagsForResourceOutput`.
#[derive(Serialize)]
pub(crate) struct ListTagsForResourceOutput {
    tags: Vec<ResourceTag>,
}

/// TagResource: adds tags; a key already present takes the new value.
pub(crate) async fn tag_resource(
    svc: &Service,
    ctx: &Ctx,
    input: TagResourceInput,
) -> Result<Empty, Fault> {
    let mut v = Violations::default();
    v.resource_tags("tags", &input.tags);
    v.finish()?;
    let arn = resolve(ctx, &input.resource_arn)?;
    let max_tags = svc.limits.max_domain_tags;
    svc.store
        .write(
            move |tx| {
                let mut domain = tagged_domain(tx, &arn)?;
                let tags = merge_tags(std::mem::take(&mut domain.tags), input.tags);
                if tags.len() > max_tags {
                    return Err(Fault::too_many_tags(max_tags));
                }
                domain.tags = tags;
                Ok((arn, domain))
            },
            |tx, (arn, domain)| tx.put_domain(&arn.scope, &domain).map(|()| Empty {}),
        )
        .await
}

/// UntagResource: removes the given keys; keys the domain does not carry are ignored.
pub(crate) async fn untag_resource(
    svc: &Service,
    ctx: &Ctx,
    input: UntagResourceInput,
) -> Result<Empty, Fault> {
    let arn = resolve(ctx, &input.resource_arn)?;
    svc.store
        .write(
            move |tx| {
                let mut domain = tagged_domain(tx, &arn)?;
                domain.tags.retain(|t| !input.tag_keys.contains(&t.key));
                Ok((arn, domain))
            },
            |tx, (arn, domain)| tx.put_domain(&arn.scope, &domain).map(|()| Empty {}),
        )
        .await
}

/// ListTagsForResource: every tag of the domain (not paginated).
pub(crate) async fn list_tags_for_resource(
    svc: &Service,
    ctx: &Ctx,
    input: ListTagsForResourceInput,
) -> Result<ListTagsForResourceOutput, Fault> {
    let arn = resolve(ctx, &input.resource_arn)?;
    let domain = svc.store.read(move |tx| tagged_domain(tx, &arn)).await?;
    Ok(ListTagsForResourceOutput { tags: domain.tags })
}

/// `tags` added to `existing`: new keys are appended, known keys take the new value.
pub(super) fn merge_tags(
    mut existing: Vec<ResourceTag>,
    tags: Vec<ResourceTag>,
) -> Vec<ResourceTag> {
    for tag in tags {
        match existing.iter_mut().find(|t| t.key == tag.key) {
            Some(old) => old.value = tag.value,
            None => existing.push(tag),
        }
    }
    existing
}

/// `TooManyTagsFault` if a domain would carry more tags than allowed.
pub(super) fn check_tag_count(svc: &Service, tags: &[ResourceTag]) -> Result<(), Fault> {
    let max = svc.limits.max_domain_tags;
    if tags.len() > max {
        return Err(Fault::too_many_tags(max));
    }
    Ok(())
}

/// The domain ARN `arn`, if it names a domain of the caller's own scope.
fn resolve(ctx: &Ctx, arn: &str) -> Result<DomainArn, Fault> {
    DomainArn::parse(arn)
        .filter(|parsed| parsed.scope == ctx.scope)
        .ok_or_else(|| Fault::unknown_resource(arn))
}

fn tagged_domain(tx: &dyn Reads, arn: &DomainArn) -> Result<Domain, Fault> {
    // Read to be changed: outside a write transaction that is a plain read.
    tx.domain_to_change(&arn.scope, &arn.name)?
        .ok_or_else(|| Fault::unknown_resource(&arn.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Scope;

    fn tag(key: &str, value: &str) -> ResourceTag {
        ResourceTag {
            key: key.into(),
            value: Some(value.into()),
        }
    }

    #[test]
    fn merging_replaces_values_and_keeps_first_positions() {
        let merged = merge_tags(
            vec![tag("a", "1"), tag("b", "2")],
            vec![tag("b", "3"), tag("c", "4"), tag("c", "5")],
        );
        assert_eq!(merged, vec![tag("a", "1"), tag("b", "3"), tag("c", "5")]);
    }

    #[test]
    fn arns_of_other_scopes_are_unknown() {
        let ctx = Ctx {
            scope: Scope {
                account: "000000000000".into(),
                region: "us-east-1".into(),
            },
            tenant: crate::tenancy::open_tenant(),
            stop: None,
        };
        assert!(resolve(&ctx, "arn:aws:swf:us-east-1:000000000000:/domain/d").is_ok());
        for arn in [
            "arn:aws:swf:us-west-2:000000000000:/domain/d",
            "arn:aws:swf:us-east-1:111111111111:/domain/d",
            "d",
        ] {
            assert!(
                matches!(resolve(&ctx, arn), Err(Fault::UnknownResource(_))),
                "{arn}"
            );
        }
    }
}
