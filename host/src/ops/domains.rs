//! RegisterDomain, DescribeDomain, ListDomains, DeprecateDomain, UndeprecateDomain (spec §4.1–4.2).

use serde::{Deserialize, Serialize};

use crate::fault::{Fault, Violations};
use crate::model::{Domain, DomainArn, Empty, RegistrationStatus, ResourceTag, Scope};
use crate::store::Cursor;

use super::paging::page_size;
use super::tags::{check_tag_count, merge_tags};
use super::{Ctx, Service, known_domain};

/// `RegisterDomainInput`.
#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RegisterDomainInput {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) workflow_execution_retention_period_in_days: String,
    #[serde(default)]
    pub(crate) tags: Vec<ResourceTag>,
}

/// The input of the operations that name just a domain.
#[derive(Deserialize)]
pub(crate) struct DomainNameInput {
    name: String,
}

/// `ListDomainsInput`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListDomainsInput {
    next_page_token: Option<String>,
    registration_status: RegistrationStatus,
    maximum_page_size: Option<i64>,
    #[serde(default)]
    reverse_order: bool,
}

/// `DomainInfo`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DomainInfo {
    name: String,
    status: RegistrationStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    arn: String,
}

impl DomainInfo {
    fn new(scope: &Scope, domain: &Domain) -> Self {
        DomainInfo {
            name: domain.name.clone(),
            status: domain.status(),
            description: domain.description.clone(),
            arn: DomainArn::new(scope, &domain.name).to_string(),
        }
    }
}

/// `DomainDetail`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DomainDetail {
    domain_info: DomainInfo,
    configuration: DomainConfiguration,
}

/// `DomainConfiguration`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DomainConfiguration {
    workflow_execution_retention_period_in_days: String,
}

/// `DomainInfos`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DomainInfos {
    domain_infos: Vec<DomainInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_page_token: Option<String>,
}

/// Whether a RegisterDomain `input` keeps the rules the model states in prose (its name, its
/// retention, its tags). Acts on nothing: `weft apply` asks it of a manifest's domain first.
pub(crate) fn check_register(input: &RegisterDomainInput) -> Result<(), Fault> {
    let mut v = Violations::default();
    v.name("name", &input.name);
    v.retention(
        "workflowExecutionRetentionPeriodInDays",
        &input.workflow_execution_retention_period_in_days,
    );
    v.resource_tags("tags", &input.tags);
    v.finish()
}

/// RegisterDomain: a new domain, unique among registered and deprecated ones in the scope.
pub(crate) async fn register_domain(
    svc: &Service,
    ctx: &Ctx,
    input: RegisterDomainInput,
) -> Result<Empty, Fault> {
    check_register(&input)?;
    let tags = merge_tags(Vec::new(), input.tags);
    check_tag_count(svc, &tags)?;

    let scope = ctx.scope.clone();
    let max_domains = ctx.tenant.quotas.domains;
    svc.store
        .write(
            move |tx| {
                if tx.domain(&scope, &input.name)?.is_some() {
                    return Err(Fault::domain_already_exists(&input.name));
                }
                if tx.domain_count(&scope.account, max_domains)? >= max_domains {
                    return Err(Fault::domains_limit(max_domains));
                }
                let retention = input.workflow_execution_retention_period_in_days;
                Ok((scope, input.name, input.description, retention))
            },
            |tx, (scope, name, description, retention)| {
                let domain = Domain {
                    id: tx.next_id()?,
                    name,
                    description,
                    retention,
                    deprecated_at: None,
                    tags,
                };
                tx.add_domain(&scope, &domain)?;
                Ok(Empty {})
            },
        )
        .await
}

/// DescribeDomain: works for deprecated domains too.
pub(crate) async fn describe_domain(
    svc: &Service,
    ctx: &Ctx,
    input: DomainNameInput,
) -> Result<DomainDetail, Fault> {
    let scope = ctx.scope.clone();
    let domain = svc
        .store
        .read(move |tx| known_domain(tx, &scope, &input.name))
        .await?;
    Ok(DomainDetail {
        domain_info: DomainInfo::new(&ctx.scope, &domain),
        configuration: DomainConfiguration {
            workflow_execution_retention_period_in_days: domain.retention,
        },
    })
}

/// ListDomains: the domains of one status, by name.
pub(crate) async fn list_domains(
    svc: &Service,
    ctx: &Ctx,
    input: ListDomainsInput,
) -> Result<DomainInfos, Fault> {
    let status = input.registration_status;
    let reverse = input.reverse_order;
    let query = ("ListDomains", status, reverse);
    let after: Option<String> = svc.resume(input.next_page_token.as_deref(), &query)?;
    let limit = page_size(input.maximum_page_size);
    let scope = ctx.scope.clone();
    let page = svc
        .store
        .read(move |tx| {
            let cursor = Cursor {
                after: after.as_deref(),
                reverse,
                limit,
            };
            Ok::<_, Fault>(tx.domains(&scope, cursor, &|d| d.status() == status)?)
        })
        .await?;
    let next_page_token = svc.next_page_token(&query, &page, |domain| &domain.name);
    Ok(DomainInfos {
        domain_infos: page
            .items
            .iter()
            .map(|d| DomainInfo::new(&ctx.scope, d))
            .collect(),
        next_page_token,
    })
}

/// DeprecateDomain: no new types or executions; everything running continues.
pub(crate) async fn deprecate_domain(
    svc: &Service,
    ctx: &Ctx,
    input: DomainNameInput,
) -> Result<Empty, Fault> {
    set_deprecated(svc, ctx, input.name, true).await
}

/// UndeprecateDomain: usable for new work again.
pub(crate) async fn undeprecate_domain(
    svc: &Service,
    ctx: &Ctx,
    input: DomainNameInput,
) -> Result<Empty, Fault> {
    set_deprecated(svc, ctx, input.name, false).await
}

async fn set_deprecated(
    svc: &Service,
    ctx: &Ctx,
    name: String,
    deprecate: bool,
) -> Result<Empty, Fault> {
    let scope = ctx.scope.clone();
    svc.store
        .write(
            move |tx| {
                let domain = tx
                    .domain_to_change(&scope, &name)?
                    .ok_or_else(|| Fault::unknown_domain(&name))?;
                match (deprecate, domain.status()) {
                    (true, RegistrationStatus::Deprecated) => {
                        Err(Fault::domain_deprecated(&domain.name))
                    }
                    (false, RegistrationStatus::Registered) => {
                        Err(Fault::domain_already_exists(&domain.name))
                    }
                    _ => Ok((scope, domain)),
                }
            },
            move |tx, (scope, mut domain)| {
                domain.deprecated_at = deprecate.then(|| tx.now());
                tx.put_domain(&scope, &domain)?;
                Ok(Empty {})
            },
        )
        .await
}
