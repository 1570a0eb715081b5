//! Where the server is, who signs, and how answers are printed: what every command that drives
//! a running server shares.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::Args;
use serde::Serialize;
use weft_host::client::Client;
use weft_host::client::profile::Profile;

/// Where the server is, who signs, and how to print its answers.
#[derive(Args)]
pub(crate) struct Remote {
    /// The server's URL: `http://host:port` or `https://host[:port]`.
    #[arg(
        long,
        env = "WEFT_ENDPOINT",
        default_value = "http://127.0.0.1:8080",
        global = true
    )]
    pub(crate) endpoint: String,
    /// The region to act in, sent in the SigV4 credential scope (default: `AWS_REGION`,
    /// `AWS_DEFAULT_REGION`, the profile's region, else us-east-1).
    #[arg(long, global = true)]
    region: Option<String>,
    /// Print the server's JSON instead of short lines.
    #[arg(long, global = true)]
    pub(crate) json: bool,
    /// The profile of the AWS shared config and credentials files to sign with (default:
    /// `AWS_PROFILE`, else `default`).
    #[arg(long, global = true)]
    profile: Option<String>,
    /// The access key id to sign with (default: `AWS_ACCESS_KEY_ID`, else the profile's). A
    /// server with tenants requires signed requests.
    #[arg(long, global = true, requires = "secret_access_key")]
    access_key_id: Option<String>,
    /// The secret access key to sign with (default: `AWS_SECRET_ACCESS_KEY`, else the
    /// profile's).
    #[arg(long, global = true, requires = "access_key_id")]
    secret_access_key: Option<String>,
    /// Also trust the CA certificates in this PEM file for an `https://` endpoint.
    #[arg(long, env = "AWS_CA_BUNDLE", global = true, value_name = "FILE")]
    ca_file: Option<PathBuf>,
}

impl Remote {
    /// A client of the server, signing with the first credentials found, in the AWS CLI's
    /// order: the flags, `--profile`, the environment, `AWS_PROFILE` or the default profile.
    pub(crate) fn client(&self) -> anyhow::Result<Client> {
        self.client_for(&self.endpoint)
    }

    /// Like [`Remote::client`], for the server at `endpoint` instead (another SWF, signed
    /// with the same credentials).
    pub(crate) fn client_for(&self, endpoint: &str) -> anyhow::Result<Client> {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let named = self.profile.clone().or_else(|| env("AWS_PROFILE"));
        let profile =
            Profile::load(named.as_deref().unwrap_or("default")).map_err(anyhow::Error::msg)?;
        if let (Some(name), None) = (&named, &profile) {
            anyhow::bail!("no profile {name:?} in the AWS config or credentials file");
        }
        let profile = profile.unwrap_or_default();
        let from_env = env("AWS_ACCESS_KEY_ID").zip(env("AWS_SECRET_ACCESS_KEY"));
        let from_profile = || {
            let keys = profile.access_key_id.clone();
            keys.zip(profile.secret_access_key.clone())
        };
        let keys = match (&self.access_key_id, &self.secret_access_key) {
            (Some(id), Some(secret)) => Some((id.clone(), secret.clone())),
            _ if self.profile.is_some() => from_profile(),
            _ => from_env.or_else(from_profile),
        };
        let region = (self.region.clone())
            .or_else(|| env("AWS_REGION"))
            .or_else(|| env("AWS_DEFAULT_REGION"))
            .or(profile.region)
            .unwrap_or_else(|| "us-east-1".to_owned());
        let client = Client::trusting(endpoint, &region, self.ca_file.as_deref())?;
        Ok(match keys {
            Some((id, secret)) => client.with_credentials(&id, &secret),
            None => client,
        })
    }
}

/// The bytes of `file`.
pub(crate) fn read(file: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))
}

/// One line per record.
pub(crate) fn lines<T>(records: &[T], line: fn(&T) -> String) -> Vec<String> {
    records.iter().map(line).collect()
}

/// Prints `answer` as JSON (as the server sent it), or its `lines`.
pub(crate) fn print(json: bool, answer: &impl Serialize, lines: impl IntoIterator<Item = String>) {
    if json {
        match serde_json::to_string(answer) {
            Ok(answer) => println!("{answer}"),
            Err(e) => eprintln!("cannot print the answer as JSON: {e}"),
        }
    } else {
        for line in lines {
            println!("{line}");
        }
    }
}
