//! The domain record and domain ARNs.

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;

use super::{RegistrationStatus, ResourceTag, Scope};

/// A registered domain, as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Domain {
    /// A number unique in the store; keys of everything inside the domain start with it, so
    /// they stay small and a name never needs rewriting.
    pub(crate) id: u64,
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    /// The retention period exactly as registered (`"NONE"`, `"0"`..`"90"`).
    pub(crate) retention: String,
    /// When the domain was deprecated; `None` while it is registered.
    pub(crate) deprecated_at: Option<Timestamp>,
    /// Resource tags in the order they were first added.
    pub(crate) tags: Vec<ResourceTag>,
}

impl Domain {
    /// The domain's own registration status.
    pub(crate) fn status(&self) -> RegistrationStatus {
        match self.deprecated_at {
            None => RegistrationStatus::Registered,
            Some(_) => RegistrationStatus::Deprecated,
        }
    }

    /// Days a closed run is kept; 0 (for `"NONE"` and `"0"`) means it goes as soon as it
    /// closes (spec §4.1 RegisterDomain).
    pub(crate) fn retention_days(&self) -> u32 {
        self.retention.parse().unwrap_or(0)
    }
}

/// A domain ARN: `arn:aws:swf:REGION:ACCOUNT:/domain/NAME`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DomainArn {
    pub(crate) scope: Scope,
    pub(crate) name: String,
}

impl DomainArn {
    /// The ARN of domain `name` in `scope`.
    pub(crate) fn new(scope: &Scope, name: &str) -> Self {
        DomainArn {
            scope: scope.clone(),
            name: name.to_owned(),
        }
    }

    /// Parses a domain ARN; `None` for anything else.
    pub(crate) fn parse(arn: &str) -> Option<Self> {
        let mut parts = arn.splitn(6, ':');
        let (Some("arn"), Some(partition), Some("swf"), Some(region), Some(account), Some(res)) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            return None;
        };
        let name = res.strip_prefix("/domain/")?;
        (partition == partition_of(region) && !name.is_empty()).then(|| DomainArn {
            scope: Scope {
                account: account.to_owned(),
                region: region.to_owned(),
            },
            name: name.to_owned(),
        })
    }
}

impl std::fmt::Display for DomainArn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Scope { account, region } = &self.scope;
        let partition = partition_of(region);
        write!(
            f,
            "arn:{partition}:swf:{region}:{account}:/domain/{}",
            self.name
        )
    }
}

/// The AWS partition a region belongs to.
fn partition_of(region: &str) -> &'static str {
    if region.starts_with("cn-") {
        "aws-cn"
    } else if region.starts_with("us-gov-") {
        "aws-us-gov"
    } else {
        "aws"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(region: &str) -> Scope {
        Scope {
            account: "123456789012".into(),
            region: region.into(),
        }
    }

    #[test]
    fn arns_round_trip() {
        for region in ["us-east-1", "cn-north-1", "us-gov-west-1"] {
            let arn = DomainArn::new(&scope(region), "orders");
            assert_eq!(DomainArn::parse(&arn.to_string()), Some(arn));
        }
        assert_eq!(
            DomainArn::new(&scope("eu-west-1"), "d").to_string(),
            "arn:aws:swf:eu-west-1:123456789012:/domain/d"
        );
    }

    #[test]
    fn rejects_other_arns() {
        for arn in [
            "arn:aws:swf:us-east-1:123456789012:/domain/",
            "arn:aws:sqs:us-east-1:123456789012:/domain/d",
            "arn:aws-cn:swf:us-east-1:123456789012:/domain/d",
            "arn:aws:swf:us-east-1:123456789012:/workflow/d",
            "arn:aws:swf:us-east-1",
            "d",
        ] {
            assert_eq!(DomainArn::parse(arn), None, "{arn}");
        }
    }
}
