//! Opaque, authenticated tokens: page tokens now, task tokens later.
//!
//! A token is `base64url(payload || mac)`, where the MAC is HMAC-SHA256 under a secret kept in the
//! database, truncated to 128 bits. Clients cannot forge or alter a token, and a restart keeps
//! every issued token meaningful. Each kind of token has its own [`Purpose`], so one kind can never
//! be passed off as another.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::digest::KeyInit;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// Bytes of MAC kept in a token: 128 bits is far beyond guessing and keeps tokens short.
const MAC_LEN: usize = 16;

/// What a token is for; part of the MAC input.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Purpose {
    /// A `nextPageToken` of a list operation.
    Page = 1,
    /// A `taskToken` of a decision or activity task.
    Task = 2,
}

/// Seals and opens tokens under one secret.
pub(crate) struct Sealer {
    key: [u8; 32],
}

impl Sealer {
    /// A sealer using `key`.
    pub(crate) fn new(key: [u8; 32]) -> Self {
        Sealer { key }
    }

    fn mac(&self, purpose: Purpose, payload: &[u8]) -> Hmac<Sha256> {
        let mut mac =
            <Hmac<Sha256> as KeyInit>::new_from_slice(&self.key).expect("HMAC takes any key");
        mac.update(&[purpose as u8]);
        mac.update(payload);
        mac
    }

    /// The token carrying `payload`.
    pub(crate) fn seal(&self, purpose: Purpose, payload: &[u8]) -> String {
        let tag = self.mac(purpose, payload).finalize().into_bytes();
        let mut bytes = Vec::with_capacity(payload.len() + MAC_LEN);
        bytes.extend_from_slice(payload);
        bytes.extend_from_slice(&tag[..MAC_LEN]);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// The payload of `token` if this sealer made it for `purpose`; `None` for anything else.
    pub(crate) fn open(&self, purpose: Purpose, token: &str) -> Option<Vec<u8>> {
        let mut bytes = URL_SAFE_NO_PAD.decode(token).ok()?;
        let payload_len = bytes.len().checked_sub(MAC_LEN)?;
        // verify_truncated_left compares in constant time.
        self.mac(purpose, &bytes[..payload_len])
            .verify_truncated_left(&bytes[payload_len..])
            .ok()?;
        bytes.truncate(payload_len);
        Some(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_tampering() {
        let sealer = Sealer::new([7; 32]);
        let token = sealer.seal(Purpose::Page, b"position");
        assert_eq!(
            sealer.open(Purpose::Page, &token).as_deref(),
            Some(&b"position"[..])
        );

        let mut bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
        bytes[0] ^= 1;
        assert_eq!(
            sealer.open(Purpose::Page, &URL_SAFE_NO_PAD.encode(bytes)),
            None
        );
        assert_eq!(Sealer::new([8; 32]).open(Purpose::Page, &token), None);
        assert_eq!(sealer.open(Purpose::Page, "not a token!"), None);
        assert_eq!(sealer.open(Purpose::Page, ""), None);
    }
}
