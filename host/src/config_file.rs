//! `weft.toml`: the file `weft serve --config` reads. The repository's `weft.example.toml`
//! documents every setting.
//!
//! Unknown keys are refused, so a misspelt quota never silently takes its default.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::config::{
    Config, DEFAULT_DATA_DIR, DEFAULT_LISTEN, Limits, ServerTls, StoreUrl, TenantConfig,
};

/// The whole file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// How the server runs; the environment and flags override these.
    #[serde(default)]
    pub server: ServerSettings,
    /// SWF's documented limits.
    #[serde(default)]
    pub limits: Limits,
    /// Who may call. None: the open single-tenant mode.
    #[serde(default)]
    pub tenants: Vec<TenantConfig>,
    /// Where the state lives.
    #[serde(default)]
    pub store: StoreSettings,
    /// What the operator, not a tenant, may reach.
    #[serde(default)]
    pub operator: OperatorSettings,
}

/// `weft.toml`'s `[operator]` table.
#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperatorSettings {
    /// The bearer token `/metrics` asks for (`Authorization: Bearer TOKEN`, as Prometheus
    /// sends it). Required with tenants: without it, nobody may scrape.
    pub metrics_token: Option<String>,
}

impl std::fmt::Debug for OperatorSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let token = self.metrics_token.as_ref().map(|_| "..");
        f.debug_struct("OperatorSettings")
            .field("metrics_token", &token)
            .finish()
    }
}

/// `weft.toml`'s `[store]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreSettings {
    /// A PostgreSQL database shared by every node that names it; `--store` and `WEFT_STORE`
    /// override it. None: redb in the data directory.
    pub url: Option<StoreUrl>,
}

/// The server's settings: one struct for the three places they come from. Each is a key of
/// `weft.toml`'s `[server]` table, an environment variable and a flag of `weft serve` (clap
/// reads both into this same struct); flags win over the environment, which wins over the
/// file, which wins over the defaults ([`Config::new`], [`crate::HttpLimits::default`]). These docs
/// are the flags' help.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, clap::Args)]
#[serde(deny_unknown_fields)]
pub struct ServerSettings {
    /// Address to listen on (port 0 picks a free port) [default: 127.0.0.1:8080].
    #[arg(long, env = "WEFT_LISTEN", value_name = "ADDR")]
    pub listen: Option<String>,
    /// Directory holding the database (with redb) and compiled Wasm code; created if missing
    /// [default: ./weft-data].
    #[arg(long, env = "WEFT_DATA", value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// A PostgreSQL database to keep the state in, which several nodes may share
    /// (postgres://USER@HOST/DB); weft.toml's [store] url [default: redb in --data].
    #[arg(long, env = "WEFT_STORE", value_name = "URL")]
    #[serde(skip)]
    pub store: Option<StoreUrl>,
    /// MiB of memory redb keeps of its database file; reads beyond it go to the file (and the
    /// operating system's cache) [default: 64].
    #[arg(long = "store-cache", env = "WEFT_STORE_CACHE", value_name = "MIB",
          value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    pub store_cache_mib: Option<u64>,
    /// Seconds a long poll waits for a task before answering empty, 1 to 3600 [default: 60].
    #[arg(long = "poll-timeout", env = "WEFT_POLL_TIMEOUT", value_name = "SECS",
          value_parser = clap::value_parser!(u64).range(1..=MAX_POLL_TIMEOUT_SECS))]
    pub poll_timeout_secs: Option<u64>,
    /// Seconds a signed request's time may be from the server's [default: 900, as AWS].
    #[arg(
        long = "max-clock-skew",
        env = "WEFT_MAX_CLOCK_SKEW",
        value_name = "SECS"
    )]
    pub max_clock_skew_secs: Option<u64>,
    /// The 12-digit account id of the open tenant, when no tenants are configured
    /// [default: 000000000000].
    #[arg(long, env = "WEFT_ACCOUNT_ID", value_name = "ID")]
    pub account_id: Option<String>,
    /// Keep closed executions this many seconds instead of their domain's retention period
    /// (for testing; SWF counts retention in days).
    #[arg(
        long = "retain-closed-for",
        env = "WEFT_RETAIN_CLOSED_FOR",
        value_name = "SECS"
    )]
    pub retain_closed_for_secs: Option<u64>,
    /// Connections served at once; more wait in the backlog until one closes. Each long poll
    /// holds one [default: 4096].
    #[arg(long, env = "WEFT_MAX_CONNECTIONS", value_name = "N")]
    pub max_connections: Option<usize>,
    /// Connections one client address (an IPv6 /64) may hold at once; more are answered
    /// ThrottlingException. Set it to max_connections behind a proxy [default: a quarter of
    /// max_connections].
    #[arg(long, env = "WEFT_MAX_CONNECTIONS_PER_ADDRESS", value_name = "N")]
    pub max_connections_per_address: Option<usize>,
    /// The last connection slots, kept for addresses holding few connections [default: a
    /// sixteenth of max_connections].
    #[arg(long, env = "WEFT_RESERVED_CONNECTIONS", value_name = "N")]
    pub reserved_connections: Option<usize>,
    /// What "few" is: an address holding fewer connections may take a reserved slot
    /// [default: 8].
    #[arg(long, env = "WEFT_RESERVED_PER_ADDRESS", value_name = "N")]
    pub reserved_per_address: Option<usize>,
    /// Bytes a request's line and headers may take; more is answered 431 [default: 65536].
    #[arg(long, env = "WEFT_MAX_HEADER_BYTES", value_name = "BYTES")]
    pub max_header_bytes: Option<usize>,
    /// Seconds a client has to send a request's headers; also how long a kept-alive connection
    /// may sit idle [default: 10].
    #[arg(long = "header-timeout", env = "WEFT_HEADER_TIMEOUT", value_name = "SECS",
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub header_timeout_secs: Option<u64>,
    /// Seconds a client has to send a request's body, module uploads included [default: 30].
    #[arg(long = "body-timeout", env = "WEFT_BODY_TIMEOUT", value_name = "SECS",
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub body_timeout_secs: Option<u64>,
    /// Seconds a signed request has to send its body while its signature cannot be checked
    /// (it sent no x-amz-content-sha256) [default: 5].
    #[arg(long = "unverified-body-timeout", env = "WEFT_UNVERIFIED_BODY_TIMEOUT",
          value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub unverified_body_timeout_secs: Option<u64>,
    /// Bytes of body such a request may send [default: 1048576].
    #[arg(long, env = "WEFT_UNVERIFIED_BODY_BYTES", value_name = "BYTES")]
    pub unverified_body_bytes: Option<usize>,
    /// A PEM file of CAs that activity workers' outgoing HTTPS trusts, besides the Mozilla
    /// roots compiled in; repeat for more. Flags replace the file's list [default: none].
    #[arg(long = "http-ca", value_name = "FILE")]
    pub http_ca: Option<Vec<PathBuf>>,
    /// A host name clients may reach an open server by, besides loopback names and IP
    /// addresses (DNS rebinding is refused by the Host header); repeat for more, or separate
    /// by commas [default: none].
    #[arg(
        long = "allow-host",
        env = "WEFT_ALLOWED_HOSTS",
        value_name = "NAME",
        value_delimiter = ','
    )]
    pub allowed_hosts: Option<Vec<String>>,
    /// Serve HTTPS with this PEM certificate chain (the server's certificate first), read again
    /// when it changes; needs --tls-key [default: plain HTTP].
    #[arg(long, env = "WEFT_TLS_CERT", value_name = "FILE")]
    pub tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert's certificate, read again when it changes.
    #[arg(long, env = "WEFT_TLS_KEY", value_name = "FILE")]
    pub tls_key: Option<PathBuf>,
    /// Serve HTTPS with a certificate made for localhost and the allowed hosts, kept in the
    /// data directory; clients trust it with AWS_CA_BUNDLE=DATA/tls/ca.pem, as printed at
    /// start [default: false].
    #[arg(long, env = "WEFT_TLS_SELF_SIGNED", value_name = "BOOL", num_args = 0..=1,
          default_missing_value = "true")]
    pub tls_self_signed: Option<bool>,
    /// Also serve plain HTTP on this address, beside HTTPS on --listen [default: none].
    #[arg(long, env = "WEFT_HTTP_LISTEN", value_name = "ADDR")]
    pub http_listen: Option<String>,
    /// For tests: run on a clock that starts at the real time and, whenever the server is
    /// idle, jumps to the next timer or timeout; `weft clock` reads and moves it. Refused with
    /// tenants and with --store [default: false].
    #[arg(long, env = "WEFT_TIME_SKIPPING", value_name = "BOOL", num_args = 0..=1,
          default_missing_value = "true")]
    pub time_skipping: Option<bool>,
    /// For tests and trying things out: keep the state in memory only, lost when weft stops
    /// (nothing is written to --data but a self-signed certificate). Refused with tenants and
    /// with --store [default: false].
    #[arg(long, env = "WEFT_EPHEMERAL", value_name = "BOOL", num_args = 0..=1,
          default_missing_value = "true")]
    pub ephemeral: Option<bool>,
    /// Before retention purges a closed run, write it as `weft export` does, to
    /// DIR/ACCOUNT/REGION/DOMAIN/ (the open server's account is 000000000000), so `weft import
    /// --from DIR/ACCOUNT/REGION/DOMAIN` restores it [default: none].
    #[arg(long, env = "WEFT_ARCHIVE", value_name = "DIR")]
    pub archive: Option<PathBuf>,
}

/// Where `weft serve` listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listen {
    /// The main address: HTTPS when TLS is configured, else plain HTTP.
    pub addr: String,
    /// A second address, serving plain HTTP beside HTTPS.
    pub http_addr: Option<String>,
}

/// The longest poll timeout: AWS's is 60 s, and a poll holds a connection all along.
const MAX_POLL_TIMEOUT_SECS: u64 = 3600;

impl ServerSettings {
    /// These settings, with `lower`'s where these give none: the one place sources are merged.
    pub fn or(self, lower: ServerSettings) -> ServerSettings {
        ServerSettings {
            listen: self.listen.or(lower.listen),
            data: self.data.or(lower.data),
            store: self.store.or(lower.store),
            store_cache_mib: self.store_cache_mib.or(lower.store_cache_mib),
            poll_timeout_secs: self.poll_timeout_secs.or(lower.poll_timeout_secs),
            max_clock_skew_secs: self.max_clock_skew_secs.or(lower.max_clock_skew_secs),
            account_id: self.account_id.or(lower.account_id),
            retain_closed_for_secs: self.retain_closed_for_secs.or(lower.retain_closed_for_secs),
            max_connections: self.max_connections.or(lower.max_connections),
            max_connections_per_address: self
                .max_connections_per_address
                .or(lower.max_connections_per_address),
            reserved_connections: self.reserved_connections.or(lower.reserved_connections),
            reserved_per_address: self.reserved_per_address.or(lower.reserved_per_address),
            max_header_bytes: self.max_header_bytes.or(lower.max_header_bytes),
            header_timeout_secs: self.header_timeout_secs.or(lower.header_timeout_secs),
            body_timeout_secs: self.body_timeout_secs.or(lower.body_timeout_secs),
            unverified_body_timeout_secs: self
                .unverified_body_timeout_secs
                .or(lower.unverified_body_timeout_secs),
            unverified_body_bytes: self.unverified_body_bytes.or(lower.unverified_body_bytes),
            http_ca: self.http_ca.or(lower.http_ca),
            allowed_hosts: self.allowed_hosts.or(lower.allowed_hosts),
            tls_cert: self.tls_cert.or(lower.tls_cert),
            tls_key: self.tls_key.or(lower.tls_key),
            tls_self_signed: self.tls_self_signed.or(lower.tls_self_signed),
            http_listen: self.http_listen.or(lower.http_listen),
            time_skipping: self.time_skipping.or(lower.time_skipping),
            ephemeral: self.ephemeral.or(lower.ephemeral),
            archive: self.archive.or(lower.archive),
        }
    }

    /// How the server speaks HTTPS, if it does, or why the settings contradict each other.
    fn tls(&self) -> Result<Option<ServerTls>, String> {
        let self_signed = self.tls_self_signed == Some(true);
        let tls = match (self.tls_cert.clone(), self.tls_key.clone()) {
            (Some(_), _) | (_, Some(_)) if self_signed => {
                return Err(
                    "give either --tls-self-signed or --tls-cert and --tls-key, not both \
                            (tls_self_signed, tls_cert and tls_key in weft.toml)"
                        .into(),
                );
            }
            (Some(cert), Some(key)) => Some(ServerTls::Files { cert, key }),
            (None, None) => self_signed.then_some(ServerTls::SelfSigned),
            (Some(_), None) | (None, Some(_)) => {
                return Err("--tls-cert and --tls-key go together: give both \
                            (tls_cert and tls_key in weft.toml)"
                    .into());
            }
        };
        if tls.is_none() && self.http_listen.is_some() {
            return Err(
                "--http-listen serves plain HTTP beside HTTPS: give --tls-cert and \
                        --tls-key or --tls-self-signed too, or use --listen alone"
                    .into(),
            );
        }
        Ok(tls)
    }

    /// Where to listen and the configuration these settings give over the defaults, or why
    /// they contradict each other.
    pub fn resolve(
        self,
        limits: Limits,
        tenants: Vec<TenantConfig>,
    ) -> Result<(Listen, Config), String> {
        let secs = Duration::from_secs;
        let tls = self.tls()?;
        let listen = Listen {
            addr: self.listen.unwrap_or_else(|| DEFAULT_LISTEN.to_owned()),
            http_addr: self.http_listen,
        };
        let mut config = Config::new(self.data.unwrap_or_else(|| DEFAULT_DATA_DIR.into()));
        config.tls = tls;
        config.time_skipping = self.time_skipping == Some(true);
        config.ephemeral = self.ephemeral == Some(true);
        config.store = self.store;
        let mib = |mib: u64| usize::try_from(mib).unwrap_or(usize::MAX >> 20) << 20;
        set(&mut config.store_cache, self.store_cache_mib.map(mib));
        config.limits = limits;
        config.tenants = tenants;
        set(&mut config.poll_timeout, self.poll_timeout_secs.map(secs));
        set(
            &mut config.max_clock_skew,
            self.max_clock_skew_secs.map(secs),
        );
        set(&mut config.account_id, self.account_id);
        config.retention_override = self.retain_closed_for_secs.map(secs);
        config.archive = self.archive;
        let http = &mut config.http;
        set(&mut http.max_connections, self.max_connections);
        if self.max_connections_per_address.is_some() {
            http.max_connections_per_address = self.max_connections_per_address;
        }
        if self.reserved_connections.is_some() {
            http.reserved_connections = self.reserved_connections;
        }
        set(&mut http.reserved_per_address, self.reserved_per_address);
        set(&mut http.max_header_bytes, self.max_header_bytes);
        set(&mut http.header_timeout, self.header_timeout_secs.map(secs));
        set(&mut http.body_timeout, self.body_timeout_secs.map(secs));
        let unverified = self.unverified_body_timeout_secs.map(secs);
        set(&mut http.unverified_body_timeout, unverified);
        set(&mut http.unverified_body_bytes, self.unverified_body_bytes);
        set(&mut config.http_ca, self.http_ca);
        set(&mut config.allowed_hosts, self.allowed_hosts);
        Ok((listen, config))
    }
}

/// Replaces `value` with `given`, if given.
fn set<T>(value: &mut T, given: Option<T>) {
    if let Some(given) = given {
        *value = given;
    }
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

    /// The address to listen on and the configuration: the defaults, then this file, then
    /// `over` (the environment and the flags, as clap merged them).
    pub fn resolve(self, over: ServerSettings) -> Result<(Listen, Config), String> {
        let file = ServerSettings {
            store: self.store.url,
            ..self.server
        };
        let settings = over.or(file);
        if settings.poll_timeout_secs == Some(0)
            || settings.poll_timeout_secs > Some(MAX_POLL_TIMEOUT_SECS)
        {
            return Err(format!(
                "poll_timeout_secs must be 1 to {MAX_POLL_TIMEOUT_SECS}"
            ));
        }
        let (listen, mut config) = settings.resolve(self.limits, self.tenants)?;
        config.metrics_token = self.operator.metrics_token;
        Ok((listen, config))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_operators_metrics_token_is_read_and_never_printed() {
        let file = ConfigFile::parse("[operator]\nmetrics_token = \"s3cret-token\"\n").unwrap();
        assert!(!format!("{:?}", file.operator).contains("s3cret"));
        let (_, config) = file.resolve(ServerSettings::default()).unwrap();
        assert_eq!(config.metrics_token.as_deref(), Some("s3cret-token"));
        assert!(ConfigFile::parse("[operator]\ntoken = \"x\"\n").is_err());
    }

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
        let (listen, config) = file.resolve(ServerSettings::default()).unwrap();
        assert_eq!(listen.addr, DEFAULT_LISTEN);
        assert_eq!(listen.http_addr, None);
        assert_eq!(config.tls, None);
        assert_eq!(config.data_dir, std::path::Path::new(DEFAULT_DATA_DIR));
        assert_eq!(config.poll_timeout, Config::new("/nowhere").poll_timeout);
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
    fn flags_and_environment_win_over_the_file_which_wins_over_the_defaults() {
        let file = ConfigFile::parse(
            "[server]\nlisten = \"127.0.0.1:9\"\npoll_timeout_secs = 5\nbody_timeout_secs = 7\n\
             retain_closed_for_secs = 3\narchive = \"/file/archive\"\n",
        )
        .unwrap();
        // What clap reads from flags and the environment, into the same struct.
        #[derive(clap::Parser)]
        struct Flags {
            #[command(flatten)]
            settings: ServerSettings,
        }
        let flags = <Flags as clap::Parser>::try_parse_from([
            "weft",
            "--poll-timeout",
            "20",
            "--max-connections",
            "64",
            "--archive",
            "/flag/archive",
        ])
        .unwrap();
        let (listen, config) = file.resolve(flags.settings).unwrap();
        assert_eq!(config.archive, Some(PathBuf::from("/flag/archive")));
        assert_eq!(listen.addr, "127.0.0.1:9");
        assert_eq!(config.poll_timeout, Duration::from_secs(20));
        assert_eq!(config.http.body_timeout, Duration::from_secs(7));
        assert_eq!(config.http.max_connections, 64);
        assert_eq!(config.retention_override, Some(Duration::from_secs(3)));
        let defaults = Config::new("/nowhere");
        assert_eq!(config.max_clock_skew, defaults.max_clock_skew);
        assert_eq!(config.http.header_timeout, defaults.http.header_timeout);
        assert!(<Flags as clap::Parser>::try_parse_from(["weft", "--poll-timeout", "0"]).is_err());
        let zero = ConfigFile::parse("[server]\npoll_timeout_secs = 0\n").unwrap();
        let Err(refused) = zero.resolve(ServerSettings::default()) else {
            panic!("a poll timeout of 0 s is refused");
        };
        assert!(refused.contains("poll_timeout_secs"), "{refused}");
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

    #[test]
    fn http_ca_files_are_configured() {
        let file = || ConfigFile::parse("[server]\nhttp_ca = [\"/etc/a.pem\", \"b.pem\"]\n");
        let (_, config) = file().unwrap().resolve(ServerSettings::default()).unwrap();
        assert_eq!(
            config.http_ca,
            [PathBuf::from("/etc/a.pem"), PathBuf::from("b.pem")]
        );
        // Flags replace the file's list.
        let flags = ServerSettings {
            http_ca: Some(vec![PathBuf::from("c.pem")]),
            ..ServerSettings::default()
        };
        let (_, config) = file().unwrap().resolve(flags).unwrap();
        assert_eq!(config.http_ca, [PathBuf::from("c.pem")]);
        let (_, config) = ConfigFile::default()
            .resolve(ServerSettings::default())
            .unwrap();
        assert!(config.http_ca.is_empty());
    }

    #[test]
    fn the_store_comes_from_the_file_or_the_flags_and_never_prints() {
        let file =
            ConfigFile::parse("[store]\nurl = \"postgres://weft:secret@db/weft\"\n").unwrap();
        let (_, config) = file.resolve(ServerSettings::default()).unwrap();
        let url = config.store.expect("the file's store");
        assert_eq!(url.expose(), "postgres://weft:secret@db/weft");
        assert!(!format!("{url:?}").contains("secret"));

        let file = ConfigFile::parse("[store]\nurl = \"postgres://a@db/one\"\n").unwrap();
        let flags = ServerSettings {
            store: Some(StoreUrl::new("postgres://b@db/two")),
            ..ServerSettings::default()
        };
        let (_, config) = file.resolve(flags.clone()).unwrap();
        assert_eq!(config.store.unwrap().expose(), "postgres://b@db/two");
        assert!(!format!("{flags:?}").contains("db/two"));
        let (_, config) = ConfigFile::default()
            .resolve(ServerSettings::default())
            .unwrap();
        assert!(config.store.is_none(), "redb unless a store is named");
        // Not a [server] key: the file names it in [store] only.
        assert!(ConfigFile::parse("[server]\nstore = \"postgres://x\"\n").is_err());
    }

    #[test]
    fn redb_keeps_64_mib_in_memory_unless_told_otherwise() {
        let resolve = |file: &str, flag: Option<u64>| {
            let flags = ServerSettings {
                store_cache_mib: flag,
                ..ServerSettings::default()
            };
            let (_, config) = ConfigFile::parse(file).unwrap().resolve(flags).unwrap();
            config.store_cache >> 20
        };
        assert_eq!(resolve("", None), 64);
        assert_eq!(resolve("[server]\nstore_cache_mib = 16\n", None), 16);
        assert_eq!(resolve("[server]\nstore_cache_mib = 16\n", Some(8)), 8);
    }

    #[test]
    fn tls_settings_are_checked_and_resolved() {
        let resolve = |text: &str| {
            ConfigFile::parse(text)
                .unwrap()
                .resolve(ServerSettings::default())
        };
        let (listen, config) = resolve(
            "[server]\ntls_cert = \"c.pem\"\ntls_key = \"k.pem\"\nhttp_listen = \"127.0.0.1:9\"\n",
        )
        .unwrap();
        let files = ServerTls::Files {
            cert: "c.pem".into(),
            key: "k.pem".into(),
        };
        assert_eq!(config.tls, Some(files));
        assert_eq!(listen.http_addr.as_deref(), Some("127.0.0.1:9"));
        let (_, config) = resolve("[server]\ntls_self_signed = true\n").unwrap();
        assert_eq!(config.tls, Some(ServerTls::SelfSigned));

        let refused = |text: &str, says: &str| {
            let error = resolve(text).err().expect("refused");
            assert!(error.contains(says), "{error}");
        };
        refused("[server]\ntls_cert = \"c.pem\"\n", "go together");
        refused(
            "[server]\ntls_self_signed = true\ntls_key = \"k.pem\"\n",
            "not both",
        );
        refused("[server]\nhttp_listen = \"127.0.0.1:9\"\n", "beside HTTPS");

        // The flag alone means true, as other boolean flags do.
        #[derive(clap::Parser)]
        struct Flags {
            #[command(flatten)]
            settings: ServerSettings,
        }
        let flags = <Flags as clap::Parser>::try_parse_from(["weft", "--tls-self-signed"]).unwrap();
        assert_eq!(flags.settings.tls_self_signed, Some(true));
    }
}
