//! Who may hold the edge's connections: at most `max_connections` in all, at most
//! `per_address` from one client address, and the last `reserved` only for addresses that hold
//! fewer than `reserved_per_address`.
//!
//! The cap on all connections protects the process (file descriptors, memory); it is enforced
//! by not accepting, so connections over it wait in the kernel's backlog. The per-address cap
//! and the reserve protect other clients from one that takes many connections, or from a few
//! that together fill the rest: those are enforced after accepting, since only then is the
//! address known. A refused connection is answered `ThrottlingException` (which SDKs retry
//! with back-off) if it sends a request promptly, and closed.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpStream;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::super::request_id;
use super::super::response::{self, Face};
use super::trim::Closes;
use super::unparsed::Rewrite;
use crate::config::HttpLimits;
use crate::fault::Fault;

/// Refused connections answered at once; beyond them a refused connection is closed unanswered,
/// so a flood of refusals costs a bounded number of tasks and file descriptors.
const REFUSALS_ANSWERED: usize = 64;

/// How long a refused connection has to send its request's head and take the answer.
const REFUSAL_DEADLINE: Duration = Duration::from_secs(2);

/// The edge's connections, counted in all and by client address.
pub(super) struct Connections {
    /// One permit per connection that may be open: what keeps the loop from accepting.
    slots: Arc<Semaphore>,
    max: usize,
    per_address: usize,
    reserved: usize,
    reserved_per_address: usize,
    /// What a refused connection's request head may take, as for any other.
    max_header_bytes: usize,
    /// Open connections by client ([`client_of`]); an address holding none has no entry.
    held: Mutex<HashMap<IpAddr, usize>>,
    /// Refusals being answered.
    refusals: Arc<Semaphore>,
    /// Connections closed, for giving back what they freed.
    pub(super) closes: Arc<Closes>,
}

/// An open connection's place, given back when the connection closes (the slot dropped).
pub(super) struct Slot {
    connections: Arc<Connections>,
    client: IpAddr,
    _permit: OwnedSemaphorePermit,
}

impl Connections {
    pub(super) fn new(limits: &HttpLimits) -> Arc<Connections> {
        Arc::new(Connections {
            slots: Arc::new(Semaphore::new(limits.max_connections)),
            max: limits.max_connections,
            per_address: limits.per_address(),
            reserved: limits.reserved(),
            reserved_per_address: limits.reserved_per_address,
            max_header_bytes: limits.max_header_bytes,
            held: Mutex::new(HashMap::new()),
            refusals: Arc::new(Semaphore::new(REFUSALS_ANSWERED)),
            closes: Arc::default(),
        })
    }

    fn held(&self) -> MutexGuard<'_, HashMap<IpAddr, usize>> {
        // Every change is one call on the map, so a panic elsewhere cannot leave it half done.
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until a connection may be accepted without going over the cap; `None` once the
    /// semaphore is closed (never, today).
    pub(super) async fn free_slot(&self) -> Option<OwnedSemaphorePermit> {
        self.slots.clone().acquire_owned().await.ok()
    }

    /// Admits a connection from `peer` into the slot `permit` holds, or says why not.
    pub(super) fn admit(
        self: &Arc<Self>,
        permit: OwnedSemaphorePermit,
        peer: IpAddr,
    ) -> Result<Slot, Fault> {
        let client = client_of(peer);
        let mut held = self.held();
        let holds = held.get(&client).copied().unwrap_or(0);
        if holds >= self.per_address {
            return Err(Fault::Throttling(format!(
                "Too many connections from {client}: at most {} are served at once",
                self.per_address
            )));
        }
        // Connections open, this one included.
        let open = self.max - self.slots.available_permits();
        if open > self.max - self.reserved && holds >= self.reserved_per_address {
            return Err(Fault::Throttling(format!(
                "The server is nearly at its connection limit; its last connections are kept \
                 for clients holding fewer than {}",
                self.reserved_per_address
            )));
        }
        *held.entry(client).or_default() += 1;
        Ok(Slot {
            connections: self.clone(),
            client,
            _permit: permit,
        })
    }

    /// Answers a refused connection with `fault` if it sends a request within
    /// [`REFUSAL_DEADLINE`], then closes it; closes it at once if [`REFUSALS_ANSWERED`] are
    /// being answered already.
    pub(super) fn refuse(&self, stream: TcpStream, fault: Fault) {
        tracing::debug!(message = %fault, "connection refused");
        let Ok(answering) = self.refusals.clone().try_acquire_owned() else {
            return;
        };
        let max_header_bytes = self.max_header_bytes;
        tokio::spawn(async move {
            let _answering = answering;
            let mut http = http1::Builder::new();
            http.timer(TokioTimer::new())
                .header_read_timeout(REFUSAL_DEADLINE)
                .max_buf_size(max_header_bytes)
                .writev(false)
                .keep_alive(false);
            let service = hyper::service::service_fn(move |request: hyper::Request<_>| {
                let face = Face::of_path(request.uri().path());
                let answer = response::respond(face, &request_id(), Err(fault.clone()));
                async move { Ok::<_, std::convert::Infallible>(answer) }
            });
            let io = TokioIo::new(Rewrite::new(stream));
            let connection = http.serve_connection(io, service);
            let _ = tokio::time::timeout(REFUSAL_DEADLINE, connection).await;
        });
    }

    /// Waits until every connection is closed.
    pub(super) async fn all_closed(&self) {
        let all = u32::try_from(self.max).unwrap_or(u32::MAX);
        let _ = self.slots.acquire_many(all).await;
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.connections.closes.closed();
        let mut held = self.connections.held();
        if let Some(count) = held.get_mut(&self.client) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.client);
            }
        }
    }
}

/// The client an address belongs to: an IPv4 address (IPv4-mapped IPv6 ones included), or an
/// IPv6 /64, the block a single host or home network is usually given whole, so that one
/// client cannot pass as many by using many of its addresses.
fn client_of(peer: IpAddr) -> IpAddr {
    match peer {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                IpAddr::V6(Ipv6Addr::from(prefix))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn connections(max: usize, per_address: usize, reserved: usize) -> Arc<Connections> {
        Connections::new(&HttpLimits {
            max_connections: max,
            max_connections_per_address: Some(per_address),
            reserved_connections: Some(reserved),
            reserved_per_address: 1,
            ..HttpLimits::default()
        })
    }

    async fn admit(c: &Arc<Connections>, peer: &str) -> Result<Slot, Fault> {
        let permit = c.free_slot().await.unwrap();
        c.admit(permit, ip(peer))
    }

    #[tokio::test]
    async fn one_address_cannot_take_more_than_its_share() {
        let c = connections(10, 2, 0);
        let first = admit(&c, "10.0.0.1").await.unwrap();
        let _second = admit(&c, "10.0.0.1").await.unwrap();
        let refused = admit(&c, "10.0.0.1").await.err().unwrap();
        assert_eq!(refused.code(), "ThrottlingException");
        assert!(refused.to_string().contains("from 10.0.0.1"), "{refused}");
        // Another address is served, and a closed connection's place is free again.
        let _other = admit(&c, "10.0.0.2").await.unwrap();
        drop(first);
        assert!(admit(&c, "10.0.0.1").await.is_ok());
    }

    #[tokio::test]
    async fn the_reserve_is_for_addresses_with_few_connections() {
        let c = connections(4, 10, 2);
        let _a1 = admit(&c, "10.0.0.1").await.unwrap();
        let _a2 = admit(&c, "10.0.0.1").await.unwrap();
        // Only reserved slots are left: 10.0.0.1 holds too many for one.
        assert!(admit(&c, "10.0.0.1").await.is_err());
        let _b = admit(&c, "10.0.0.2").await.unwrap();
        assert!(admit(&c, "10.0.0.2").await.is_err());
        let _c = admit(&c, "10.0.0.3").await.unwrap();
        // Every slot is taken: the next waits for one.
        assert_eq!(c.slots.available_permits(), 0);
        assert!(c.held().values().sum::<usize>() == 4);
    }

    #[test]
    fn ipv6_clients_count_by_their_64() {
        assert_eq!(client_of(ip("2001:db8:1:2:aaaa::1")), ip("2001:db8:1:2::"));
        assert_eq!(
            client_of(ip("2001:db8:1:2:bbbb::7")),
            client_of(ip("2001:db8:1:2:aaaa::1"))
        );
        assert_ne!(client_of(ip("2001:db8:1:3::1")), ip("2001:db8:1:2::"));
        assert_eq!(client_of(ip("::ffff:10.1.2.3")), ip("10.1.2.3"));
        assert_eq!(client_of(ip("10.1.2.3")), ip("10.1.2.3"));
    }
}
