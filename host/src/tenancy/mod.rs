//! Tenants: who may call, with which keys, in which domains, within which quotas (see
//! ARCHITECTURE.md, "Scopes").
//!
//! Everything a tenant owns is stored under its account id, so isolation comes from the scope
//! every request is resolved in; this module decides which tenant a request is. Configured
//! tenants sign every request with SigV4 ([`sigv4`]); without any, one open tenant serves local
//! use and nothing is authenticated.

mod bucket;
pub(crate) mod sigv4;
mod verify;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Semaphore;

#[cfg(test)]
use crate::config::AccessKey;
pub(crate) use crate::config::Quotas;
use crate::config::{Config, Limits, TenantConfig, is_account_id};
use crate::runtime::GuestLimits;

use self::bucket::Bucket;
pub(crate) use self::verify::{Caller, Checked, check_declared};

/// The open tenant's quotas: SWF's limits, and as much Wasm as a binding may ever ask for. Its
/// `long_polls` counts per region, since the open tenant is everyone.
fn open_quotas(limits: &Limits) -> Quotas {
    Quotas {
        domains: limits.max_domains,
        modules: 100,
        module_bytes: 4 << 30,
        wasm_memory_bytes: GuestLimits::CEILING.memory_bytes,
        wasm_cpu_ms: GuestLimits::CEILING.cpu_ms,
        wasm_instances: crate::runtime::POOL_SIZE,
        open_executions: limits.max_open_runs,
        requests_per_second: None,
        request_burst: None,
        long_polls: limits.max_long_polls,
        compiles: limits.max_compiles,
        replay_cpu_ms: Quotas::default().replay_cpu_ms,
    }
}

/// A tenant, as requests and workers see it.
pub(crate) struct Tenant {
    pub(crate) name: String,
    pub(crate) account: String,
    /// `None`: any domain.
    domains: Option<Vec<DomainRule>>,
    pub(crate) quotas: Quotas,
    pub(crate) http_hosts: Vec<String>,
    /// Its request rate; none when unlimited.
    bucket: Option<Mutex<Bucket>>,
    /// Its share of the instance pool: one permit per Wasm instance it may run at once.
    pub(crate) instances: Arc<Semaphore>,
    /// Its turns to compile: one permit per module it may compile at once.
    pub(crate) compiles: Arc<Semaphore>,
}

/// One entry of a tenant's `domains`.
#[derive(Debug)]
enum DomainRule {
    Name(String),
    Prefix(String),
}

impl Tenant {
    fn new(config: &TenantConfig) -> Tenant {
        let any = config.domains.iter().any(|d| d == "*");
        let rules = config.domains.iter().map(|d| match d.strip_suffix('*') {
            Some(prefix) => DomainRule::Prefix(prefix.to_owned()),
            None => DomainRule::Name(d.clone()),
        });
        let quotas = config.quotas.clone();
        let bucket = quotas.requests_per_second.map(|rate| {
            let burst = quotas.request_burst.unwrap_or(rate.ceil() as u32).max(1);
            Mutex::new(Bucket::new(rate, burst))
        });
        Tenant {
            name: config.name.clone(),
            account: config.account_id.clone(),
            domains: (!any).then(|| rules.collect()),
            instances: Arc::new(Semaphore::new(quotas.wasm_instances as usize)),
            compiles: Arc::new(Semaphore::new(quotas.compiles.max(1))),
            quotas,
            http_hosts: config.http_hosts.clone(),
            bucket,
        }
    }

    /// Whether it may create and use the domain `name`.
    pub(crate) fn may_use(&self, name: &str) -> bool {
        self.domains.as_ref().is_none_or(|rules| {
            rules.iter().any(|rule| match rule {
                DomainRule::Name(n) => n == name,
                DomainRule::Prefix(p) => name.starts_with(p.as_str()),
            })
        })
    }

    /// Whether its bindings may be granted outgoing HTTP to `host` (as a binding names it).
    pub(crate) fn may_grant_http(&self, host: &str) -> bool {
        self.http_hosts.iter().any(|h| h == "*" || h == host)
    }

    /// Takes `n` requests from its rate, now or as they come within `patience`: how long to
    /// wait before making them, or `None`, having taken nothing, if they come later.
    pub(crate) fn admit_within(&self, n: u32, patience: Duration) -> Option<Duration> {
        let Some(bucket) = &self.bucket else {
            return Some(Duration::ZERO);
        };
        let mut bucket = bucket.lock().unwrap_or_else(|p| p.into_inner());
        bucket.take_within(n, patience)
    }

    /// `limits` within its quotas.
    pub(crate) fn clamp(&self, limits: GuestLimits) -> GuestLimits {
        GuestLimits {
            cpu_ms: limits.cpu_ms.min(self.quotas.wasm_cpu_ms),
            memory_bytes: limits.memory_bytes.min(self.quotas.wasm_memory_bytes),
            ..limits
        }
    }
}

/// Waits out a wait that [`Tenant::admit_within`] answered; returns at once for none. Tokio's
/// timers tick in whole milliseconds, so even a zero sleep would hold the caller until the next
/// tick: about a millisecond added to every request within its rate.
pub(crate) async fn wait_out(wait: Duration) {
    if !wait.is_zero() {
        tokio::time::sleep(wait).await;
    }
}

/// Every tenant, by access key and by account.
pub(crate) struct Tenants {
    /// Whether requests are unsigned: one open tenant, nobody authenticated.
    open: bool,
    by_key: HashMap<String, (Arc<Tenant>, String)>,
    by_account: HashMap<String, Arc<Tenant>>,
    /// How far a request's time may be from ours.
    max_skew: Duration,
}

impl Tenants {
    /// The tenants `config` names, or the open tenant on its account when it names none.
    pub(crate) fn new(config: &Config) -> Result<Tenants, String> {
        if config.tenants.is_empty() {
            let open = TenantConfig {
                name: "open".into(),
                account_id: config.account_id.clone(),
                keys: Vec::new(),
                domains: vec!["*".into()],
                quotas: open_quotas(&config.limits),
                http_hosts: vec!["*".into()],
            };
            let tenant = Arc::new(Tenant::new(&open));
            return Ok(Tenants {
                open: true,
                by_key: HashMap::new(),
                by_account: HashMap::from([(open.account_id, tenant)]),
                max_skew: config.max_clock_skew,
            });
        }
        let mut tenants = Tenants {
            open: false,
            by_key: HashMap::new(),
            by_account: HashMap::new(),
            max_skew: config.max_clock_skew,
        };
        for t in &config.tenants {
            check(t)?;
            let tenant = Arc::new(Tenant::new(t));
            if tenants
                .by_account
                .insert(t.account_id.clone(), tenant.clone())
                .is_some()
            {
                return Err(format!(
                    "account id {} belongs to more than one tenant",
                    t.account_id
                ));
            }
            for key in &t.keys {
                let entry = (tenant.clone(), key.secret.clone());
                if tenants.by_key.insert(key.id.clone(), entry).is_some() {
                    return Err(format!("access key {} is given twice", key.id));
                }
            }
        }
        Ok(tenants)
    }

    /// Whether requests go unauthenticated.
    pub(crate) fn is_open(&self) -> bool {
        self.open
    }

    /// Each tenant's account and name; none when open (whose one tenant names nobody).
    pub(crate) fn names(&self) -> Vec<(String, String)> {
        match self.open {
            true => Vec::new(),
            false => self
                .by_account
                .iter()
                .map(|(account, tenant)| (account.clone(), tenant.name.clone()))
                .collect(),
        }
    }

    /// The tenant owning `account`, if one does.
    pub(crate) fn by_account(&self, account: &str) -> Option<&Arc<Tenant>> {
        self.by_account.get(account)
    }

    /// The open tenant (in open mode, the only one).
    fn the_open_one(&self) -> &Arc<Tenant> {
        self.by_account
            .values()
            .next()
            .expect("open mode has its tenant")
    }
}

/// The open tenant of a default configuration, for unit tests elsewhere.
#[cfg(test)]
pub(crate) fn open_tenant() -> Arc<Tenant> {
    let tenants = Tenants::new(&Config::new("/nowhere")).expect("the defaults work");
    tenants.the_open_one().clone()
}

/// An open tenant whose quotas `adjust` changes, for unit tests elsewhere.
#[cfg(test)]
pub(crate) fn open_tenant_with(adjust: impl FnOnce(&mut Quotas)) -> Arc<Tenant> {
    let mut quotas = open_quotas(&Limits::default());
    adjust(&mut quotas);
    Arc::new(Tenant::new(&TenantConfig {
        name: "open".into(),
        account_id: crate::config::DEFAULT_ACCOUNT_ID.into(),
        keys: Vec::new(),
        domains: vec!["*".into()],
        quotas,
        http_hosts: vec!["*".into()],
    }))
}

/// Tenants of one tenant, "acme" on account 111111111111, with the key `id` and `secret`, for
/// unit tests elsewhere.
#[cfg(test)]
pub(crate) fn one_tenant(id: &str, secret: &str) -> Tenants {
    one_tenant_keyed(id, secret, &["*"])
}

/// Like [`one_tenant`], allowed only `domains`.
#[cfg(test)]
pub(crate) fn one_tenant_with_domains(domains: &[&str]) -> Tenants {
    one_tenant_keyed("AKIDACME", "0123456789abcdef", domains)
}

#[cfg(test)]
fn one_tenant_keyed(id: &str, secret: &str, domains: &[&str]) -> Tenants {
    let mut config = Config::new("/nowhere");
    config.tenants = vec![TenantConfig {
        name: "acme".into(),
        account_id: "111111111111".into(),
        keys: vec![AccessKey {
            id: id.into(),
            secret: secret.into(),
        }],
        domains: domains.iter().map(|d| d.to_string()).collect(),
        quotas: Quotas::default(),
        http_hosts: Vec::new(),
    }];
    Tenants::new(&config).expect("a workable tenant")
}

/// Refuses a tenant whose configuration cannot work.
fn check(t: &TenantConfig) -> Result<(), String> {
    let problem = if t.name.is_empty() {
        Some("has no name".to_owned())
    } else if !is_account_id(&t.account_id) {
        Some(format!("account id {:?} is not 12 digits", t.account_id))
    } else if t.keys.is_empty() {
        Some("has no keys".to_owned())
    } else if t
        .keys
        .iter()
        .any(|k| k.id.is_empty() || k.secret.len() < 16)
    {
        Some("has a key with no id or a secret shorter than 16 characters".to_owned())
    } else if t.domains.is_empty() {
        Some("may use no domain: give names, prefixes such as \"acme-*\", or \"*\"".to_owned())
    } else if t
        .quotas
        .requests_per_second
        .is_some_and(|r| !(r > 0.0 && r.is_finite()))
    {
        Some("has a request rate that is not a positive number".to_owned())
    } else if t.quotas.wasm_memory_bytes > GuestLimits::CEILING.memory_bytes
        || t.quotas.wasm_cpu_ms > GuestLimits::CEILING.cpu_ms
    {
        Some(format!(
            "has Wasm quotas above what the host allows ({} ms, {} bytes)",
            GuestLimits::CEILING.cpu_ms,
            GuestLimits::CEILING.memory_bytes
        ))
    } else {
        None
    };
    match problem {
        Some(p) => Err(format!("tenant {:?} {p}", t.name)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tenant(domains: &[&str]) -> TenantConfig {
        TenantConfig {
            name: "acme".into(),
            account_id: "111111111111".into(),
            keys: vec![AccessKey {
                id: "AKIDACME".into(),
                secret: "0123456789abcdef".into(),
            }],
            domains: domains.iter().map(|d| d.to_string()).collect(),
            quotas: Quotas::default(),
            http_hosts: Vec::new(),
        }
    }

    /// Whether `future` finishes on its first poll.
    fn ready_at_once(future: impl Future<Output = ()>) -> bool {
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        std::pin::pin!(future).poll(&mut cx).is_ready()
    }

    #[tokio::test]
    async fn a_request_within_the_rate_waits_for_no_timer() {
        // Without a rate, or with tokens left: nothing to wait for, not even a timer's tick.
        let mut rated = tenant(&["*"]);
        rated.quotas.requests_per_second = Some(10.0);
        for config in [tenant(&["*"]), rated] {
            let wait = Tenant::new(&config).admit_within(1, Duration::ZERO);
            assert!(ready_at_once(wait_out(wait.expect("admitted"))));
        }
        assert!(!ready_at_once(wait_out(Duration::from_millis(5))));
    }

    #[test]
    fn domains_are_names_or_prefixes() {
        let t = Tenant::new(&tenant(&["orders", "acme-*"]));
        assert!(t.may_use("orders"));
        assert!(!t.may_use("orders2"));
        assert!(t.may_use("acme-"));
        assert!(t.may_use("acme-billing"));
        assert!(!t.may_use("acm"));
        assert!(Tenant::new(&tenant(&["*"])).may_use("anything"));
    }

    #[test]
    fn refuses_unworkable_tenants() {
        let mut config = Config::new("/nowhere");
        config.tenants = vec![tenant(&["*"]), tenant(&["*"])];
        let err = Tenants::new(&config).err().unwrap();
        assert!(err.contains("more than one tenant"), "{err}");

        let mut short = tenant(&["*"]);
        short.keys[0].secret = "short".into();
        config.tenants = vec![short];
        assert!(Tenants::new(&config).is_err());

        config.tenants = vec![tenant(&[])];
        assert!(Tenants::new(&config).is_err());

        config.tenants = vec![tenant(&["*"])];
        let tenants = Tenants::new(&config).unwrap();
        assert!(!tenants.is_open());
        assert_eq!(tenants.by_account("111111111111").unwrap().name, "acme");
    }

    #[test]
    fn without_tenants_one_open_tenant_serves() {
        let config = Config::new("/nowhere");
        let tenants = Tenants::new(&config).unwrap();
        assert!(tenants.is_open());
        assert!(tenants.by_account(&config.account_id).unwrap().may_use("x"));
    }

    #[test]
    fn keys_are_not_printed() {
        let key = AccessKey {
            id: "AKID".into(),
            secret: "very secret value".into(),
        };
        assert!(!format!("{key:?}").contains("very secret"));
    }
}
