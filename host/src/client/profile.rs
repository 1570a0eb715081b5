//! A profile of AWS's shared files, as the AWS CLI and SDKs read them: keys from
//! `~/.aws/credentials` (or `AWS_SHARED_CREDENTIALS_FILE`), the region from `~/.aws/config`
//! (or `AWS_CONFIG_FILE`), where a profile's section is `[profile NAME]` (`[default]` for the
//! default one). Keys in the config file count too, as they do for AWS.

use std::path::PathBuf;

/// What a profile gives the client.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// `aws_access_key_id`.
    pub access_key_id: Option<String>,
    /// `aws_secret_access_key`.
    pub secret_access_key: Option<String>,
    /// `region`.
    pub region: Option<String>,
}

impl Profile {
    /// The profile `name` from the shared files; `None` if neither file has it.
    pub fn load(name: &str) -> Result<Option<Profile>, String> {
        let credentials = file("AWS_SHARED_CREDENTIALS_FILE", "credentials");
        let config = file("AWS_CONFIG_FILE", "config");
        let read = |path: &Option<PathBuf>| match path {
            Some(path) if path.exists() => std::fs::read_to_string(path)
                .map(Some)
                .map_err(|e| format!("cannot read {}: {e}", path.display())),
            _ => Ok(None),
        };
        let in_config = match name {
            "default" => "default".to_owned(),
            name => format!("profile {name}"),
        };
        let mut found = None;
        if let Some(text) = read(&config)? {
            found = section(&text, &in_config).or(found);
        }
        if let Some(text) = read(&credentials)? {
            // The credentials file wins for keys, as it does for AWS.
            if let Some(keys) = section(&text, name) {
                let mut profile = found.unwrap_or_default();
                profile.access_key_id = keys.access_key_id.or(profile.access_key_id);
                profile.secret_access_key = keys.secret_access_key.or(profile.secret_access_key);
                profile.region = profile.region.or(keys.region);
                found = Some(profile);
            }
        }
        Ok(found)
    }
}

/// The file the environment variable `var` names, else `~/.aws/NAME`.
fn file(var: &str, name: &str) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(var) {
        return Some(PathBuf::from(path));
    }
    let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE"))?;
    Some(PathBuf::from(home).join(".aws").join(name))
}

/// The section `[name]` of an INI text, read as a profile. Indented lines belong to a nested
/// setting (such as `s3 =`) and are skipped; `#` and `;` start comments.
fn section(text: &str, name: &str) -> Option<Profile> {
    let mut profile = None::<Profile>;
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with([' ', '\t']) {
            continue;
        }
        let line = line.trim();
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            inside = header.split_whitespace().collect::<Vec<_>>().join(" ") == name;
            if inside {
                profile.get_or_insert_default();
            }
            continue;
        }
        let (Some(profile), true) = (profile.as_mut(), inside) else {
            continue;
        };
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let value = Some(value.trim().to_owned()).filter(|v| !v.is_empty());
        match key.trim() {
            "aws_access_key_id" => profile.access_key_id = value,
            "aws_secret_access_key" => profile.secret_access_key = value,
            "region" => profile.region = value,
            _ => {}
        }
    }
    profile
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = "\
[default]
region = eu-west-1

# a comment
[profile  acme]
region=us-west-2
s3 =
  max_concurrent_requests = 20
aws_access_key_id = FROMCONFIG
";

    #[test]
    fn sections_are_read_by_name() {
        let default = section(CONFIG, "default").unwrap();
        assert_eq!(default.region.as_deref(), Some("eu-west-1"));
        let acme = section(CONFIG, "profile acme").unwrap();
        assert_eq!(acme.region.as_deref(), Some("us-west-2"));
        assert_eq!(acme.access_key_id.as_deref(), Some("FROMCONFIG"));
        assert_eq!(section(CONFIG, "acme"), None);
        let keys = "[acme]\naws_access_key_id = AKID\naws_secret_access_key = s3cr3t\n";
        let acme = section(keys, "acme").unwrap();
        assert_eq!(acme.access_key_id.as_deref(), Some("AKID"));
        assert_eq!(acme.secret_access_key.as_deref(), Some("s3cr3t"));
    }
}
