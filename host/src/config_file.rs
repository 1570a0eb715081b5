//! `weft.toml`: the file `weft serve --config` reads. The repository's `weft.example.toml`
//! documents every setting.
//!
//! Unknown keys are refused, so a misspelt quota never silently takes its default.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::config::{Config, Limits, TenantConfig};

/// The whole file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// How the server runs; command-line flags override these.
    #[serde(default)]
    pub server: ServerSettings,
    /// SWF's documented limits.
    #[serde(default)]
    pub limits: Limits,
    /// Who may call. None: the open single-tenant mode.
    #[serde(default)]
    pub tenants: Vec<TenantConfig>,
}

/// The `[server]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerSettings {
    /// Address to listen on.
    pub listen: Option<String>,
    /// Directory holding the database.
    pub data: Option<PathBuf>,
    /// Seconds a long poll waits for a task.
    pub poll_timeout_secs: Option<u64>,
    /// Seconds a signed request's time may be from the server's.
    pub max_clock_skew_secs: Option<u64>,
    /// The open tenant's account id, when no tenants are configured.
    pub account_id: Option<String>,
    /// Connections served at once.
    pub max_connections: Option<usize>,
    /// Connections one client address (an IPv6 /64) may hold at once.
    pub max_connections_per_address: Option<usize>,
    /// The last connection slots, kept for addresses holding few connections.
    pub reserved_connections: Option<usize>,
    /// What "few" is: an address holding fewer may take a reserved slot.
    pub reserved_per_address: Option<usize>,
    /// Bytes a request's line and headers may take.
    pub max_header_bytes: Option<usize>,
    /// Seconds a client has to send a request's headers (and a kept-alive connection may idle).
    pub header_timeout_secs: Option<u64>,
    /// Seconds a client has to send a request's body.
    pub body_timeout_secs: Option<u64>,
    /// Seconds a signed request has to send its body while its signature cannot be checked.
    pub unverified_body_timeout_secs: Option<u64>,
    /// Bytes of body such a request may send.
    pub unverified_body_bytes: Option<usize>,
}

/// Why a config file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigFileError {
    /// It could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It is not a valid `weft.toml`.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where.
        message: String,
    },
}

impl ConfigFile {
    /// Reads and parses the file at `path`.
    pub fn read(path: &Path) -> Result<ConfigFile, ConfigFileError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigFileError::Read {
            path: path.to_owned(),
            source,
        })?;
        ConfigFile::parse(&text).map_err(|message| ConfigFileError::Invalid {
            path: path.to_owned(),
            message,
        })
    }

    /// Parses a `weft.toml`.
    pub fn parse(text: &str) -> Result<ConfigFile, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    /// Applies the file to `config`: its limits, tenants and the server settings that are not
    /// about listening (the caller resolves `listen` and `data` against its flags).
    pub fn apply(self, config: &mut Config) {
        let ConfigFile {
            server,
            limits,
            tenants,
        } = self;
        config.limits = limits;
        config.tenants = tenants;
        if let Some(secs) = server.poll_timeout_secs {
            config.poll_timeout = Duration::from_secs(secs);
        }
        if let Some(secs) = server.max_clock_skew_secs {
            config.max_clock_skew = Duration::from_secs(secs);
        }
        if let Some(account) = server.account_id {
            config.account_id = account;
        }
        let http = &mut config.http;
        if let Some(n) = server.max_connections {
            http.max_connections = n;
        }
        if let Some(n) = server.max_connections_per_address {
            http.max_connections_per_address = Some(n);
        }
        if let Some(n) = server.reserved_connections {
            http.reserved_connections = Some(n);
        }
        if let Some(n) = server.reserved_per_address {
            http.reserved_per_address = n;
        }
        if let Some(n) = server.max_header_bytes {
            http.max_header_bytes = n;
        }
        if let Some(secs) = server.header_timeout_secs {
            http.header_timeout = Duration::from_secs(secs);
        }
        if let Some(secs) = server.body_timeout_secs {
            http.body_timeout = Duration::from_secs(secs);
        }
        if let Some(secs) = server.unverified_body_timeout_secs {
            http.unverified_body_timeout = Duration::from_secs(secs);
        }
        if let Some(n) = server.unverified_body_bytes {
            http.unverified_body_bytes = n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example in the repository is the documentation: it must parse, and configure what
    /// it says.
    #[test]
    fn the_example_parses() {
        let text = include_str!("../../weft.example.toml");
        let file = ConfigFile::parse(text).unwrap();
        assert_eq!(file.tenants.len(), 2);
        let acme = &file.tenants[0];
        assert_eq!(acme.account_id, "111111111111");
        assert_eq!(acme.quotas.wasm_instances, 16);
        assert_eq!(acme.quotas.requests_per_second, Some(100.0));
        assert_eq!(acme.quotas.long_polls, 500);
        let mut config = Config::new("/nowhere");
        file.apply(&mut config);
        assert_eq!(config.tenants.len(), 2);
        // The edge's settings as the example gives them: its defaults, written out.
        let http = crate::config::HttpLimits {
            max_connections_per_address: Some(1024),
            reserved_connections: Some(256),
            ..crate::config::HttpLimits::default()
        };
        assert_eq!(config.http, http);
        assert_eq!(config.limits, crate::config::Limits::default());
        assert!(crate::tenancy::Tenants::new(&config).is_ok());
    }

    #[test]
    fn unknown_keys_are_refused() {
        let err = ConfigFile::parse(
            "[[tenants]]\nname = \"a\"\naccount_id = \"111111111111\"\nkeys = []\n\
             domains = [\"*\"]\n[tenants.quotas]\nwasm_instancse = 3\n",
        )
        .unwrap_err();
        assert!(err.contains("wasm_instancse"), "{err}");
        assert!(ConfigFile::parse("[limits]\nmax_domain = 3\n").is_err());
        assert!(ConfigFile::parse("").unwrap().tenants.is_empty());
    }
}
