//! Pagination: page sizes and `nextPageToken`s.
//!
//! A token holds the position of the last item returned, the time it was issued, and a hash of
//! the query's other arguments, sealed so that clients cannot alter it. A token presented with
//! different arguments, or older than 24 hours, is refused (spec §8.13). The position is only
//! ever combined with the scope and filters of the request that presents it, so a token can never
//! reach outside that request's own results.

use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};

use crate::fault::Fault;
use crate::seal::Purpose;
use crate::store::Page;

use super::Service;

/// The most items a page holds, whatever `maximumPageSize` asks for (the model allows up to
/// 1000): AWS serves pages of at most 100, as recorded for PollForDecisionTask histories asking
/// for 1000 or nothing (2015, 2016) and as reported for ListActivityTypes and
/// ListOpenWorkflowExecutions. Absent or 0 means this many too.
const MAX_PAGE_SIZE: usize = 100;

/// How long a page token stays usable.
const TOKEN_LIFETIME_MS: i64 = 24 * 60 * 60 * 1000;

const TOKEN_VERSION: u8 = 1;

/// The page size for a `maximumPageSize` member (already checked to be 0..=1000).
pub(crate) fn page_size(requested: Option<i64>) -> usize {
    match requested.and_then(|n| usize::try_from(n).ok()) {
        Some(n) if n > 0 => n.min(MAX_PAGE_SIZE),
        _ => MAX_PAGE_SIZE,
    }
}

/// A short fingerprint of a query's arguments (everything but the token and the page size).
fn fingerprint(query: &impl Serialize) -> [u8; 8] {
    let bytes = serde_json::to_vec(query).expect("queries serialize to JSON");
    let digest = Sha256::digest(&bytes);
    let mut fp = [0; 8];
    fp.copy_from_slice(&digest[..8]);
    fp
}

impl Service {
    /// The position a `nextPageToken` resumes after, or `None` to start at the beginning.
    pub(crate) fn resume<P: DeserializeOwned>(
        &self,
        token: Option<&str>,
        query: &impl Serialize,
    ) -> Result<Option<P>, Fault> {
        let Some(token) = token else { return Ok(None) };
        let payload = self
            .sealer
            .open(Purpose::Page, token)
            .ok_or_else(Fault::invalid_token)?;
        let (header, position) = payload
            .split_at_checked(17)
            .ok_or_else(Fault::invalid_token)?;
        if header[0] != TOKEN_VERSION {
            return Err(Fault::invalid_token());
        }
        let issued = i64::from_le_bytes(header[1..9].try_into().expect("8 bytes"));
        if self.clock.now().as_millis() - issued > TOKEN_LIFETIME_MS {
            return Err(Fault::expired_token());
        }
        if header[9..17] != fingerprint(query) {
            return Err(Fault::token_for_other_arguments());
        }
        serde_json::from_slice(position)
            .map(Some)
            .map_err(|_| Fault::invalid_token())
    }

    /// The token for the page after `page` of `query`, if more items follow; `position` says
    /// where an item stands.
    pub(crate) fn next_page_token<'p, T, P: Serialize>(
        &self,
        query: &impl Serialize,
        page: &'p Page<T>,
        position: impl FnOnce(&'p T) -> P,
    ) -> Option<String> {
        let last = page.items.last().filter(|_| page.more)?;
        Some(self.next_token(query, &position(last)))
    }

    /// The token for the page after `position` of `query`.
    pub(crate) fn next_token(&self, query: &impl Serialize, position: &impl Serialize) -> String {
        let mut payload = vec![TOKEN_VERSION];
        payload.extend_from_slice(&self.clock.now().as_millis().to_le_bytes());
        payload.extend_from_slice(&fingerprint(query));
        serde_json::to_writer(&mut payload, position).expect("positions serialize to JSON");
        self.sealer.seal(Purpose::Page, &payload)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::clock::{ManualClock, Timestamp};
    use crate::store::Store;

    fn service(dir: &std::path::Path, clock: Arc<ManualClock>) -> Service {
        let opened = Store::open_dir(dir, clock.clone()).unwrap();
        let poll = std::time::Duration::from_secs(1);
        Service::for_tests(dir, clock, opened.store, opened.secret, poll)
    }

    #[tokio::test]
    async fn tokens_resume_only_their_own_query_within_a_day() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(Timestamp::from_millis(1_700_000_000_000)));
        let svc = service(dir.path(), clock.clone());
        let query = ("ListDomains", "REGISTERED", false);
        let token = svc.next_token(&query, &("name", "v1"));
        assert!(token.len() <= 2048);

        let position: Option<(String, String)> = svc.resume(Some(&token), &query).unwrap();
        assert_eq!(position, Some(("name".into(), "v1".into())));
        assert_eq!(svc.resume::<String>(None, &query).unwrap(), None);

        let other = ("ListDomains", "DEPRECATED", false);
        assert!(
            matches!(svc.resume::<(String, String)>(Some(&token), &other), Err(Fault::Validation(m)) if m.contains("other arguments"))
        );
        assert!(matches!(
            svc.resume::<(String, String)>(Some("garbage"), &query),
            Err(Fault::Validation(_))
        ));

        clock.advance(TOKEN_LIFETIME_MS + 1);
        assert!(
            matches!(svc.resume::<(String, String)>(Some(&token), &query), Err(Fault::Validation(m)) if m.contains("maximum lifetime"))
        );
    }

    #[test]
    fn pages_hold_at_most_100_as_on_aws() {
        assert_eq!(page_size(None), 100);
        assert_eq!(page_size(Some(0)), 100);
        assert_eq!(page_size(Some(7)), 7);
        assert_eq!(page_size(Some(100)), 100);
        assert_eq!(page_size(Some(1000)), 100);
    }

    #[tokio::test]
    async fn the_longest_position_fits_in_a_token() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(Timestamp::from_millis(0)));
        let svc = service(dir.path(), clock);
        // A 256-character name and a 64-character version of 4-byte characters.
        let position = ("𝄞".repeat(256), "𝄞".repeat(64));
        let token = svc.next_token(&"q", &position);
        assert!(token.len() <= 2048, "{} characters", token.len());
    }
}
