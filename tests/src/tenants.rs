//! Two tenants for the tests of tenancy: their keys, and the servers and clients that use them.

use weft_host::{AccessKey, Config, Quotas, TenantConfig};

use crate::TestServer;

/// A tenant's identity and key, as its clients know it.
#[derive(Clone, Copy, Debug)]
pub struct Tenant {
    /// Its name in the server's config.
    pub name: &'static str,
    /// Its account id.
    pub account: &'static str,
    /// Its access key id.
    pub key: &'static str,
    /// Its secret.
    pub secret: &'static str,
}

/// The first tenant.
pub const ACME: Tenant = Tenant {
    name: "acme",
    account: "111111111111",
    key: "AKIAACMETEST00001",
    secret: "acme-secret-0123456789",
};

/// The second tenant.
pub const GLOBEX: Tenant = Tenant {
    name: "globex",
    account: "222222222222",
    key: "AKIAGLOBEXTEST001",
    secret: "globex-secret-0123456789",
};

impl Tenant {
    /// Its configuration: any domain, default quotas.
    pub fn config(&self) -> TenantConfig {
        TenantConfig {
            name: self.name.to_owned(),
            account_id: self.account.to_owned(),
            keys: vec![AccessKey {
                id: self.key.to_owned(),
                secret: self.secret.to_owned(),
            }],
            domains: vec!["*".to_owned()],
            quotas: Quotas::default(),
            http_hosts: Vec::new(),
        }
    }

    /// A client of `server` signing with this tenant's key, in us-east-1.
    pub fn client(&self, server: &TestServer) -> aws_sdk_swf::Client {
        server.client_as(self.key, self.secret, "us-east-1")
    }
}

/// Configures ACME and GLOBEX with their defaults.
pub fn both(config: &mut Config) {
    config.tenants = vec![ACME.config(), GLOBEX.config()];
}
