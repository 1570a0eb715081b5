//! Register, Deprecate, Undeprecate, Delete, Describe and List for workflow and activity types
//! (spec §4.1–4.2). Both kinds share one life cycle, so each operation is written once, generic
//! over the [`TypeKind`].

use std::marker::PhantomData;

use serde::de::{Deserializer, Error as _};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::clock::Timestamp;
use crate::fault::{Fault, Violations, decode};
use crate::model::{
    Domain, Empty, Kind, RegistrationStatus, Scope, TypeKind, TypeName, TypeRecord,
};
use crate::store::{Counter, Cursor, Reads, TypeReads, TypeWrites};

use super::paging::page_size;
use super::{Ctx, Service, known_domain};

/// `RegisterWorkflowTypeInput` / `RegisterActivityTypeInput`: the name, version and description
/// of the type, and its defaults as the other members.
#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase", bound = "")]
pub(crate) struct RegisterTypeInput<K: TypeKind> {
    pub(crate) domain: String,
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) description: Option<String>,
    /// The defaults as sent: their prose rules ([`TypeKind::RULES`]) are checked on the JSON,
    /// with AWS's messages, before they are read as a `K::Config`.
    #[serde(flatten)]
    config: Map<String, Value>,
    #[serde(skip)]
    kind: PhantomData<K>,
}

// By hand: a derive would ask `K: Clone` of the marker too.
impl<K> Clone for TypeInput<K> {
    fn clone(&self) -> Self {
        TypeInput {
            domain: self.domain.clone(),
            ty: self.ty.clone(),
            kind: PhantomData,
        }
    }
}

impl<K: TypeKind> RegisterTypeInput<K> {
    /// The input registering `name` at `version` in `domain` with defaults `config`.
    pub(crate) fn new(domain: &str, name: &str, version: &str, config: &K::Config) -> Self {
        let config = match serde_json::to_value(config) {
            Ok(Value::Object(members)) => members,
            // A configuration is a struct of optional members: it serializes as an object.
            _ => Map::new(),
        };
        RegisterTypeInput {
            domain: domain.to_owned(),
            name: name.to_owned(),
            version: version.to_owned(),
            description: None,
            config,
            kind: PhantomData,
        }
    }
}

/// The input of the operations that name one type: `domain` and `workflowType` or `activityType`.
pub(crate) struct TypeInput<K> {
    domain: String,
    ty: TypeName,
    kind: PhantomData<K>,
}

impl<'de, K: TypeKind> Deserialize<'de> for TypeInput<K> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Members {
            domain: String,
            // Kept raw: only the member of this kind is read; the other one is ignored.
            workflow_type: Option<Value>,
            activity_type: Option<Value>,
        }
        let m = Members::deserialize(d)?;
        let raw = match K::KIND {
            Kind::Workflow => m.workflow_type,
            Kind::Activity => m.activity_type,
        };
        let raw = raw.ok_or_else(|| D::Error::missing_field(K::KIND.member()))?;
        Ok(TypeInput {
            domain: m.domain,
            ty: TypeName::deserialize(raw).map_err(D::Error::custom)?,
            kind: PhantomData,
        })
    }
}

/// `ListWorkflowTypesInput` / `ListActivityTypesInput`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListTypesInput {
    domain: String,
    name: Option<String>,
    registration_status: RegistrationStatus,
    next_page_token: Option<String>,
    maximum_page_size: Option<i64>,
    #[serde(default)]
    reverse_order: bool,
}

/// `WorkflowTypeInfo` / `ActivityTypeInfo`: the type is named by the kind's own member.
pub(crate) struct TypeInfo {
    kind: Kind,
    ty: TypeName,
    status: RegistrationStatus,
    description: Option<String>,
    creation_date: Timestamp,
    deprecation_date: Option<Timestamp>,
}

impl TypeInfo {
    fn new<C>(kind: Kind, ty: TypeName, record: &TypeRecord<C>, domain: &Domain) -> Self {
        let deprecation_date = record.deprecated_since(domain);
        TypeInfo {
            kind,
            ty,
            status: record.status(domain),
            description: record.description.clone(),
            creation_date: record.created_at,
            deprecation_date,
        }
    }
}

impl Serialize for TypeInfo {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry(self.kind.member(), &self.ty)?;
        map.serialize_entry("status", &self.status)?;
        if let Some(description) = &self.description {
            map.serialize_entry("description", description)?;
        }
        map.serialize_entry("creationDate", &self.creation_date)?;
        if let Some(date) = &self.deprecation_date {
            map.serialize_entry("deprecationDate", date)?;
        }
        map.end()
    }
}

/// `WorkflowTypeDetail` / `ActivityTypeDetail`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TypeDetail<C> {
    type_info: TypeInfo,
    configuration: C,
}

/// `WorkflowTypeInfos` / `ActivityTypeInfos`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TypeInfos {
    type_infos: Vec<TypeInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_page_token: Option<String>,
}

/// The defaults of a Register*Type `input` that keeps the rules the model states in prose
/// (names, durations, priorities), or the fault that says which it breaks. Acts on nothing:
/// `weft apply` asks it of a manifest's types before it registers any.
pub(crate) fn check_register<K: TypeKind>(
    input: &mut RegisterTypeInput<K>,
) -> Result<K::Config, Fault> {
    // AWS answers a type name against the name rule in its own words.
    if crate::model::name_problem(&input.name).is_some() {
        return Err(Fault::invalid_name(&input.name));
    }
    let mut v = Violations::default();
    v.name("version", &input.version);
    let mut config = std::mem::take(&mut input.config);
    for (member, rule) in K::RULES {
        rule.apply(&mut config, member, "", &mut v);
    }
    v.finish()?;
    decode(Value::Object(config))
}

/// Register*Type: a new type with immutable defaults, in a registered domain.
pub(crate) async fn register<K: TypeKind>(
    svc: &Service,
    ctx: &Ctx,
    mut input: RegisterTypeInput<K>,
) -> Result<Empty, Fault> {
    let config = check_register(&mut input)?;

    let scope = ctx.scope.clone();
    let max_types = u64::try_from(svc.limits.max_types_per_kind).unwrap_or(u64::MAX);
    svc.store
        .write(
            move |tx| {
                let domain = known_domain(tx, &scope, &input.domain)?;
                if domain.deprecated_at.is_some() {
                    return Err(Fault::domain_deprecated(&domain.name));
                }
                let ty = TypeName {
                    name: input.name,
                    version: input.version,
                };
                if tx
                    .type_record::<K>(&domain, &ty.name, &ty.version)?
                    .is_some()
                {
                    return Err(Fault::type_already_exists(K::KIND, &ty));
                }
                if tx.reaches(domain.id, Counter::Types(K::KIND), max_types)? {
                    return Err(Fault::types_limit(K::KIND, max_types));
                }
                Ok((domain, ty, input.description, config))
            },
            |tx, (domain, ty, description, config)| {
                let record = TypeRecord {
                    description,
                    created_at: tx.now(),
                    deprecated_at: None,
                    config,
                };
                tx.add_type::<K>(&domain, &ty, &record)?;
                tx.add_count(domain.id, Counter::Types(K::KIND), 1)?;
                Ok(Empty {})
            },
        )
        .await
}

/// Deprecate*Type: no new executions or tasks of the type; running ones continue.
pub(crate) async fn deprecate<K: TypeKind>(
    svc: &Service,
    ctx: &Ctx,
    input: TypeInput<K>,
) -> Result<Empty, Fault> {
    set_deprecated(svc, ctx, input, true).await
}

/// Undeprecate*Type: usable for new work again.
pub(crate) async fn undeprecate<K: TypeKind>(
    svc: &Service,
    ctx: &Ctx,
    input: TypeInput<K>,
) -> Result<Empty, Fault> {
    set_deprecated(svc, ctx, input, false).await
}

async fn set_deprecated<K: TypeKind>(
    svc: &Service,
    ctx: &Ctx,
    input: TypeInput<K>,
    deprecate: bool,
) -> Result<Empty, Fault> {
    let scope = ctx.scope.clone();
    svc.store
        .write(
            move |tx| {
                let (domain, record) = known_type::<K>(tx, &scope, &input)?;
                match (deprecate, record.status(&domain)) {
                    (true, RegistrationStatus::Deprecated) => {
                        Err(Fault::type_deprecated(K::KIND, &input.ty))
                    }
                    (false, RegistrationStatus::Registered) => {
                        Err(Fault::type_already_exists(K::KIND, &input.ty))
                    }
                    // A type deprecated through its domain comes back only with the domain.
                    (false, _) if domain.deprecated_at.is_some() => {
                        Err(Fault::domain_deprecated(&domain.name))
                    }
                    _ => Ok((domain, record, input.ty)),
                }
            },
            move |tx, (domain, mut record, ty)| {
                record.deprecated_at = deprecate.then(|| tx.now());
                tx.put_type::<K>(&domain, &ty, &record)?;
                Ok(Empty {})
            },
        )
        .await
}

/// Delete*Type: removes a deprecated type; its name and version may then be registered again.
pub(crate) async fn delete<K: TypeKind>(
    svc: &Service,
    ctx: &Ctx,
    input: TypeInput<K>,
) -> Result<Empty, Fault> {
    let scope = ctx.scope.clone();
    svc.store
        .write(
            move |tx| {
                let (domain, record) = known_type::<K>(tx, &scope, &input)?;
                if record.status(&domain) == RegistrationStatus::Registered {
                    return Err(Fault::type_not_deprecated(K::KIND, &input.ty));
                }
                Ok((domain, input.ty))
            },
            |tx, (domain, ty)| {
                tx.delete_type::<K>(&domain, &ty)?;
                tx.add_count(domain.id, Counter::Types(K::KIND), -1)?;
                Ok(Empty {})
            },
        )
        .await
}

/// Describe*Type: the type's status and exactly the defaults it was registered with.
pub(crate) async fn describe<K: TypeKind>(
    svc: &Service,
    ctx: &Ctx,
    input: TypeInput<K>,
) -> Result<TypeDetail<K::Config>, Fault> {
    let scope = ctx.scope.clone();
    svc.store
        .read(move |tx| {
            let (domain, record) = known_type::<K>(tx, &scope, &input)?;
            let type_info = TypeInfo::new(K::KIND, input.ty, &record, &domain);
            Ok(TypeDetail {
                type_info,
                configuration: record.config,
            })
        })
        .await
}

/// List*Types: the domain's types of one status (and name, if given), by name then version.
pub(crate) async fn list<K: TypeKind>(
    svc: &Service,
    ctx: &Ctx,
    input: ListTypesInput,
) -> Result<TypeInfos, Fault> {
    let status = input.registration_status;
    let reverse = input.reverse_order;
    let query = (K::KIND.label(), &input.domain, &input.name, status, reverse);
    let after: Option<(String, String)> = svc.resume(input.next_page_token.as_deref(), &query)?;
    let limit = page_size(input.maximum_page_size);
    let scope = ctx.scope.clone();
    let (domain_name, name) = (input.domain.clone(), input.name.clone());
    let (domain, page) = svc
        .store
        .read(move |tx| {
            let domain = known_domain(tx, &scope, &domain_name)?;
            let cursor = Cursor {
                after: after.as_ref().map(|(n, v)| (n.as_str(), v.as_str())),
                reverse,
                limit,
            };
            let page = tx.types::<K>(&domain, name.as_deref(), cursor, |record| {
                record.status(&domain) == status
            })?;
            Ok::<_, Fault>((domain, page))
        })
        .await?;
    let next_page_token = svc.next_page_token(&query, &page, |(ty, _)| (&ty.name, &ty.version));
    let type_infos = page
        .items
        .into_iter()
        .map(|(ty, record)| TypeInfo::new(K::KIND, ty, &record, &domain))
        .collect();
    Ok(TypeInfos {
        type_infos,
        next_page_token,
    })
}

/// The domain and the type that `input` names, or `UnknownResourceFault`. The type is read to
/// be changed: in a write transaction, no other changes it until this one ends.
fn known_type<K: TypeKind>(
    tx: &dyn Reads,
    scope: &Scope,
    input: &TypeInput<K>,
) -> Result<(Domain, TypeRecord<K::Config>), Fault> {
    let domain = known_domain(tx, scope, &input.domain)?;
    match tx.type_record_to_change::<K>(&domain, &input.ty.name, &input.ty.version)? {
        Some(record) => Ok((domain, record)),
        None => Err(Fault::unknown_type(K::KIND, &input.ty)),
    }
}
