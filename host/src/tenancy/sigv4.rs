//! AWS Signature Version 4 (spec §2): the canonical request, the string to sign and the signing
//! key, used both to verify requests and, by `client`, to sign them.
//!
//! Verification follows what botocore and the Rust SDK compute, over exactly the headers the
//! client listed in `SignedHeaders`. The signature is compared in constant time.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::http::{HeaderMap, Uri};
use hmac::digest::KeyInit;
use hmac::{Hmac, Mac};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use sha2::{Digest, Sha256};

/// The only algorithm SigV4 has.
pub(crate) const ALGORITHM: &str = "AWS4-HMAC-SHA256";

/// The service name in every credential scope Weft accepts, SWF's and its `/v1` API's alike.
pub(crate) const SERVICE: &str = "swf";

/// What SigV4 leaves unencoded: letters, digits and `-._~`.
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `UNRESERVED` and `/`, for paths.
const PATH: &AsciiSet = &UNRESERVED.remove(b'/');

/// The parts of an `Authorization: AWS4-HMAC-SHA256 ...` header.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Authorization<'a> {
    pub(crate) access_key: &'a str,
    /// `yyyymmdd`.
    pub(crate) date: &'a str,
    pub(crate) region: &'a str,
    pub(crate) service: &'a str,
    pub(crate) terminator: &'a str,
    /// Lowercase names, `;`-separated, as the client sent them.
    pub(crate) signed_headers: &'a str,
    /// Lowercase hex, as the client sent it.
    pub(crate) signature: &'a str,
}

/// Why an `Authorization` header could not be read: the message of an
/// `IncompleteSignatureException`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Incomplete(pub(crate) String);

impl<'a> Authorization<'a> {
    /// Reads `header`. Components may be separated by `,` with or without spaces.
    pub(crate) fn parse(header: &'a str) -> Result<Self, Incomplete> {
        let (algorithm, rest) = header.split_once(' ').unwrap_or((header, ""));
        if algorithm != ALGORITHM {
            return Err(Incomplete(format!(
                "Unsupported AWS 'algorithm': '{algorithm}'"
            )));
        }
        let (mut credential, mut signed_headers, mut signature) = (None, None, None);
        for part in rest.split(',').map(str::trim) {
            if let Some(v) = part.strip_prefix("Credential=") {
                credential = Some(v);
            } else if let Some(v) = part.strip_prefix("SignedHeaders=") {
                signed_headers = Some(v);
            } else if let Some(v) = part.strip_prefix("Signature=") {
                signature = Some(v);
            }
        }
        let missing: String = [
            ("Credential", credential.is_none()),
            ("Signature", signature.is_none()),
            ("SignedHeaders", signed_headers.is_none()),
        ]
        .iter()
        .filter(|(_, missing)| *missing)
        .map(|(name, _)| format!("Authorization header requires '{name}' parameter. "))
        .collect();
        let (Some(credential), Some(signed_headers), Some(signature)) =
            (credential, signed_headers, signature)
        else {
            return Err(Incomplete(format!("{missing}Authorization={header}")));
        };
        let parts: Vec<&str> = credential.split('/').collect();
        let [access_key, date, region, service, terminator] = parts[..] else {
            return Err(Incomplete(format!(
                "Credential should have 5 '/'-separated parts: \
                 <access key>/<yyyymmdd>/<region>/<service>/aws4_request, not '{credential}'."
            )));
        };
        Ok(Authorization {
            access_key,
            date,
            region,
            service,
            terminator,
            signed_headers,
            signature,
        })
    }

    /// `yyyymmdd/region/service/aws4_request`.
    pub(crate) fn scope(&self) -> String {
        scope(self.date, self.region, self.service)
    }
}

/// The credential scope of a signature made on `date` (`yyyymmdd`).
pub(crate) fn scope(date: &str, region: &str, service: &str) -> String {
    format!("{date}/{region}/{service}/aws4_request")
}

/// How the path and query enter the canonical request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// As SigV4 says for services other than S3: the path encoded once more, the query sorted.
    Spec,
    /// As sent: what curl (7.88 at least) signs. Only requests whose path or query has
    /// characters to encode differ between the two forms.
    AsSent,
}

impl Form {
    /// Whether a request on `path?query` reads differently in the two forms.
    pub(crate) fn differ(path: &str, query: &str) -> bool {
        !query.is_empty() || utf8_percent_encode(path, PATH).to_string() != path
    }
}

/// What is signed about one HTTP request.
pub(crate) struct Request<'a> {
    pub(crate) method: &'a str,
    /// The path as sent, still percent-encoded.
    pub(crate) path: &'a str,
    /// The query as sent, without `?`.
    pub(crate) query: &'a str,
    pub(crate) headers: &'a HeaderMap,
    /// Lowercase hex SHA-256 of the body (or the `x-amz-content-sha256` the client sent).
    pub(crate) payload_hash: &'a str,
}

impl Request<'_> {
    /// The canonical request over `signed_headers` (lowercase, `;`-separated).
    pub(crate) fn canonical(&self, signed_headers: &str) -> String {
        self.canonical_with(signed_headers, Form::Spec)
    }

    /// The canonical request in `form`.
    pub(crate) fn canonical_with(&self, signed_headers: &str, form: Form) -> String {
        let mut out = String::with_capacity(256);
        out.push_str(self.method);
        out.push('\n');
        let path = if self.path.is_empty() { "/" } else { self.path };
        match form {
            // Services other than S3 encode the (already encoded) path once more.
            Form::Spec => {
                out.extend(utf8_percent_encode(path, PATH));
                out.push('\n');
                out.push_str(&canonical_query(self.query));
            }
            Form::AsSent => {
                out.push_str(path);
                out.push('\n');
                out.push_str(self.query);
            }
        }
        out.push('\n');
        for name in signed_headers.split(';') {
            out.push_str(name);
            out.push(':');
            let values: Vec<String> = self
                .headers
                .get_all(name)
                .iter()
                .map(|v| collapse_spaces(&String::from_utf8_lossy(v.as_bytes())))
                .collect();
            out.push_str(&values.join(","));
            out.push('\n');
        }
        out.push('\n');
        out.push_str(signed_headers);
        out.push('\n');
        out.push_str(self.payload_hash);
        out
    }
}

/// The query's parameters, each name and value encoded as SigV4 wants, sorted.
fn canonical_query(query: &str) -> String {
    let encode = |s: &str| {
        let decoded = percent_decode_str(&s.replace('+', " "))
            .decode_utf8_lossy()
            .into_owned();
        utf8_percent_encode(&decoded, UNRESERVED).to_string()
    };
    let mut pairs: Vec<(String, String)> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (encode(k), encode(v))
        })
        .collect();
    pairs.sort();
    let joined: Vec<String> = pairs.into_iter().map(|(k, v)| format!("{k}={v}")).collect();
    joined.join("&")
}

/// `value` trimmed, with each run of spaces inside it reduced to one.
fn collapse_spaces(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `r` can be a region name: lowercase letters, digits and dashes.
pub(crate) fn is_region(r: &str) -> bool {
    (1..=32).contains(&r.len())
        && r.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Lowercase hex SHA-256.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn hmac(key: &[u8], data: &str) -> Hmac<Sha256> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes any key");
    mac.update(data.as_bytes());
    mac
}

/// The HMAC whose output is the signature of `canonical`, made at `amz_date` within `scope`
/// (`yyyymmdd/region/service/aws4_request`) with `secret`.
fn signer(secret: &str, amz_date: &str, scope: &str, canonical: &str) -> Hmac<Sha256> {
    let mut key = format!("AWS4{secret}").into_bytes();
    for part in scope.split('/') {
        key = hmac(&key, part).finalize().into_bytes().to_vec();
    }
    let string_to_sign = format!(
        "{ALGORITHM}\n{amz_date}\n{scope}\n{}",
        sha256_hex(canonical.as_bytes())
    );
    hmac(&key, &string_to_sign)
}

/// Who signs, for which region: an access key pair, and the region of its credential scope.
pub(crate) struct Signer<'a> {
    pub(crate) key: &'a str,
    pub(crate) secret: &'a str,
    pub(crate) region: &'a str,
}

impl Signer<'_> {
    /// The `Authorization` header of a request made at `amz_date` (which the request carries as
    /// `X-Amz-Date`, or as `Date` in RFC 1123 form), signing every header in `headers`, as
    /// botocore does.
    pub(crate) fn authorization(
        &self,
        method: &str,
        uri: &Uri,
        headers: &HeaderMap,
        body: &[u8],
        amz_date: &str,
    ) -> String {
        let mut names: Vec<&str> = headers.keys().map(|n| n.as_str()).collect();
        names.sort_unstable();
        let signed_headers = names.join(";");
        let payload_hash = sha256_hex(body);
        let canonical = Request {
            method,
            path: uri.path(),
            query: uri.query().unwrap_or_default(),
            headers,
            payload_hash: &payload_hash,
        }
        .canonical(&signed_headers);
        let scope = scope(amz_date.get(..8).unwrap_or_default(), self.region, SERVICE);
        let signature = sign(self.secret, amz_date, &scope, &canonical);
        format!(
            "{ALGORITHM} Credential={}/{scope}, SignedHeaders={signed_headers}, \
             Signature={signature}",
            self.key
        )
    }
}

/// The signature, in lowercase hex.
fn sign(secret: &str, amz_date: &str, scope: &str, canonical: &str) -> String {
    hex(&signer(secret, amz_date, scope, canonical)
        .finalize()
        .into_bytes())
}

/// Whether `signature` (hex) is the signature of `canonical`, compared in constant time.
pub(crate) fn verify(
    secret: &str,
    amz_date: &str,
    scope: &str,
    canonical: &str,
    signature: &str,
) -> bool {
    let Some(given) = unhex(signature) else {
        return false;
    };
    signer(secret, amz_date, scope, canonical)
        .verify_slice(&given)
        .is_ok()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// `t` in ISO-8601 basic format, as `X-Amz-Date` carries it: `20240115T010203Z`.
pub(crate) fn amz_date(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The time an `X-Amz-Date` names, if it is in ISO-8601 basic format.
pub(crate) fn parse_amz_date(s: &str) -> Option<SystemTime> {
    let b = s.as_bytes();
    if b.len() != 16 || b[8] != b'T' || b[15] != b'Z' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u64> {
        let part = s.get(r)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let (y, mo, d) = (num(0..4)?, num(4..6)?, num(6..8)?);
    let (h, mi, sec) = (num(9..11)?, num(11..13)?, num(13..15)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let days = days_from_civil(y as i64, mo as u32, d as u32);
    let secs = u64::try_from(days).ok()? * 86_400 + h * 3600 + mi * 60 + sec;
    Some(UNIX_EPOCH + Duration::from_secs(secs))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date `days` after 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    /// AWS's published example (the `get-vanilla` case of the SigV4 test suite).
    #[test]
    fn signs_the_aws_test_suite_example() {
        let mut headers = HeaderMap::new();
        headers.insert("host", HeaderValue::from_static("example.amazonaws.com"));
        headers.insert("x-amz-date", HeaderValue::from_static("20150830T123600Z"));
        let request = Request {
            method: "GET",
            path: "/",
            query: "",
            headers: &headers,
            payload_hash: &sha256_hex(b""),
        };
        let canonical = request.canonical("host;x-amz-date");
        let scope = scope("20150830", "us-east-1", "service");
        let signature = sign(
            "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            "20150830T123600Z",
            &scope,
            &canonical,
        );
        assert_eq!(
            signature,
            "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        );
        assert!(verify(
            "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            "20150830T123600Z",
            &scope,
            &canonical,
            &signature
        ));
        assert!(!verify(
            "other",
            "20150830T123600Z",
            &scope,
            &canonical,
            &signature
        ));
        assert!(!verify("x", "20150830T123600Z", &scope, &canonical, "zz"));
    }

    #[test]
    fn canonical_queries_are_sorted_and_encoded() {
        assert_eq!(canonical_query("b=2&a=x y&a=1&c"), "a=1&a=x%20y&b=2&c=");
        assert_eq!(canonical_query("k=%2F%7e"), "k=%2F~");
        assert_eq!(canonical_query(""), "");
    }

    /// Outside S3, the path is encoded once more, as botocore and the Rust SDK sign it. (curl
    /// 7.88's `--aws-sigv4` signs the path as sent, so it only agrees on paths of unreserved
    /// characters and `/`, such as SWF's `/`.)
    #[test]
    fn canonical_paths_are_encoded_again() {
        let headers = HeaderMap::new();
        let line = |path| {
            let request = Request {
                method: "GET",
                path,
                query: "",
                headers: &headers,
                payload_hash: "",
            };
            request.canonical("").lines().nth(1).unwrap().to_owned()
        };
        assert_eq!(line(""), "/");
        assert_eq!(line("/v1/modules"), "/v1/modules");
        assert_eq!(
            line("/v1/domains/a%20b/bindings"),
            "/v1/domains/a%2520b/bindings"
        );
        assert_eq!(line("/v1/domains/a:b~c"), "/v1/domains/a%3Ab~c");
    }

    #[test]
    fn header_values_are_trimmed_and_collapsed() {
        assert_eq!(collapse_spaces("  a   b  c "), "a b c");
    }

    #[test]
    fn reads_authorization_headers() {
        let auth = Authorization::parse(
            "AWS4-HMAC-SHA256 Credential=AKID/20240115/eu-west-2/swf/aws4_request,\
             SignedHeaders=host;x-amz-date, Signature=abcd",
        )
        .unwrap();
        assert_eq!(auth.access_key, "AKID");
        assert_eq!(auth.scope(), "20240115/eu-west-2/swf/aws4_request");
        assert_eq!(auth.signed_headers, "host;x-amz-date");
        assert_eq!(auth.signature, "abcd");

        let Incomplete(message) =
            Authorization::parse("AWS4-HMAC-SHA256 Credential=AKID/20240115/r/swf/aws4_request")
                .unwrap_err();
        assert!(message.starts_with(
            "Authorization header requires 'Signature' parameter. \
             Authorization header requires 'SignedHeaders' parameter. "
        ));
        assert!(Authorization::parse("Basic dXNlcjpwYXNz").is_err());
        assert!(
            Authorization::parse(
                "AWS4-HMAC-SHA256 Credential=AKID/r, SignedHeaders=host, Signature=00"
            )
            .is_err()
        );
    }

    #[test]
    fn amz_dates_round_trip() {
        let t = parse_amz_date("20240229T235959Z").unwrap();
        assert_eq!(amz_date(t), "20240229T235959Z");
        assert_eq!(
            t.duration_since(UNIX_EPOCH).unwrap().as_secs(),
            1_709_251_199
        );
        assert_eq!(amz_date(UNIX_EPOCH), "19700101T000000Z");
        for bad in [
            "20240229T235959",
            "2024-02-29T23:59:59Z",
            "20241329T000000Z",
            "",
        ] {
            assert_eq!(parse_amz_date(bad), None, "{bad}");
        }
    }
}
