//! What nodes tell each other through the database: `NOTIFY weft` payloads, sent by the
//! writer's transaction (so only once it commits), and the thread that listens for them.
//!
//! They only make other nodes act sooner: a poller there claims a task it would otherwise find
//! at its next periodic look, a timer loop looks at the deadlines again. A node that misses
//! one (its listening connection dropped) is told to look at everything ([`Signal::Resync`]).
//! A node acts on its own commits as it makes them (it hands queued tasks to its waiting polls
//! and wakes its timer loop in the same writer job), so it skips its own notices: heard, each
//! would cost a look that finds nothing, an empty pop for every list its writer queued on.

use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;

use super::catalog::Catalog;
use super::conn::{Conn, Manager};
use super::lists::{EmptyLists, ListKey};
use crate::clock::Timestamp;
use crate::model::TaskKind;
use crate::store::StoreError;
use crate::store::seam::Signal;

/// The channel the nodes sharing the schema `schema` listen on: deployments in other schemas
/// of the same database hear nothing of these.
pub(super) fn channel(schema: &str) -> String {
    format!("weft_{schema}")
}

/// Deadlines were set, the earliest at `at`: `d <milliseconds>`. A timer loop sleeping
/// towards a later one wakes sooner; none reads the store to learn it.
pub(super) fn deadline(at: Timestamp) -> String {
    format!("d {}", at.as_millis())
}

/// A deadline was set, at a time not told: what nodes of earlier versions send.
const SOME_DEADLINE: &str = "d";

/// Bindings changed: supervisors look again.
pub(super) const BINDINGS: &str = "b";

/// Task lists' controls changed: nodes read them again.
pub(super) const CONTROLS: &str = "l";

/// A domain or a type changed: nodes empty their catalogs.
pub(super) const CATALOG: &str = "c";

/// Tasks were queued on a list: `q <domain> <kind> <list>`.
pub(super) fn queued((domain, kind, list): &ListKey) -> String {
    format!("q {domain} {kind} {list}")
}

/// The signal a payload carries.
fn signal(payload: &str) -> Option<Signal> {
    match payload {
        SOME_DEADLINE => Some(Signal::Deadline(None)),
        BINDINGS => Some(Signal::Bindings),
        CONTROLS => Some(Signal::Controls),
        _ if payload.starts_with("d ") => {
            let at = payload[2..].parse().ok()?;
            Some(Signal::Deadline(Some(Timestamp::from_millis(at))))
        }
        _ => {
            let mut parts = payload.strip_prefix("q ")?.splitn(3, ' ');
            let domain = parts.next()?.parse().ok()?;
            let kind = TaskKind::from_key(parts.next()?.parse().ok()?)?;
            let list = parts.next()?.to_owned();
            Some(Signal::Queued { domain, kind, list })
        }
    }
}

/// How long a wait for notices lasts before the thread checks whether anyone still listens.
const TICK: Duration = Duration::from_millis(500);

/// How long to wait before connecting again after the listening connection failed.
const RECONNECT: Duration = Duration::from_secs(1);

/// How often a listening connection that hears nothing asks the database whether it is still
/// there: a link that went silent drops no connection by itself, and the notices sent
/// meanwhile would be missed without a word.
const PING: Duration = Duration::from_secs(10);

/// Starts the thread that listens for other nodes' notices and passes them to `signals`, and
/// empties `catalog` when a domain or type changed; notices sent by the server process `own`
/// (this node's writer) are skipped. `lists` hears of the tasks the other nodes queue. It
/// ends soon after `signals`' receiver is dropped.
pub(super) fn listen(
    manager: Arc<Manager>,
    channel: String,
    signals: UnboundedSender<Signal>,
    catalog: Arc<Catalog>,
    own: Arc<AtomicI32>,
    lists: Arc<EmptyLists>,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("weft-listener".into())
        .spawn(move || {
            let mut first = true;
            while !signals.is_closed() {
                match manager.connect() {
                    Ok(mut conn) => {
                        // Whatever came while no connection listened is unknown.
                        if !first {
                            catalog.empty();
                            if signals.send(Signal::Resync).is_err() {
                                return;
                            }
                        }
                        first = false;
                        let heard = Heard {
                            signals: &signals,
                            catalog: &catalog,
                            own: &own,
                            lists: &lists,
                        };
                        let relayed = relay(&mut conn, &channel, &heard);
                        if let Err(error) = relayed {
                            tracing::warn!(%error, "listening for other nodes failed");
                        }
                    }
                    Err(error) => tracing::warn!(%error, "cannot connect to listen"),
                }
                std::thread::sleep(RECONNECT);
            }
        })
        .map(drop)
}

/// Where the notices heard go.
struct Heard<'a> {
    signals: &'a UnboundedSender<Signal>,
    catalog: &'a Catalog,
    /// The writer's server process.
    own: &'a AtomicI32,
    lists: &'a EmptyLists,
}

/// Passes notices on until the connection fails or nobody listens any more.
fn relay(conn: &mut Conn, channel: &str, heard: &Heard<'_>) -> Result<(), StoreError> {
    let Heard {
        signals,
        catalog,
        own,
        lists,
    } = heard;
    // Quoted: the schema's name may need it. Names cannot hold a quote (see `open`).
    conn.batch(&format!("LISTEN \"{channel}\""))?;
    // Lists found empty before now may have been queued on unheard: only from now on is every
    // notice heard.
    lists.forget();
    // Task lists' controls were read at start, before this listened: a change committed in
    // between was heard by nobody here.
    if signals.send(Signal::Controls).is_err() {
        return Ok(());
    }
    let mut quiet = Duration::ZERO;
    while !signals.is_closed() {
        let notices = conn.notifications(TICK)?;
        quiet = match notices.is_empty() {
            true => quiet + TICK,
            false => Duration::ZERO,
        };
        if quiet >= PING {
            conn.batch("")?;
            quiet = Duration::ZERO;
        }
        // A writer that connected again has a new process: its old one's notices, if any
        // come after, are taken as another node's, which only costs a look.
        let own = own.load(Ordering::Relaxed);
        for notice in notices.iter().filter(|n| n.process_id() != own) {
            if notice.payload() == CATALOG {
                catalog.empty();
                continue;
            }
            let Some(signal) = signal(notice.payload()) else {
                continue;
            };
            if let Signal::Queued { domain, kind, list } = &signal {
                lists.heard((*domain, *kind as i16, list.clone()));
            }
            if signals.send(signal).is_err() {
                return Ok(());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_read_back_as_their_signals() {
        let payload = queued(&(7, TaskKind::Activity as i16, "list with spaces".into()));
        let Some(Signal::Queued { domain, kind, list }) = signal(&payload) else {
            panic!("{payload} is not a queued signal");
        };
        assert_eq!(
            (domain, kind, list.as_str()),
            (7, TaskKind::Activity, "list with spaces")
        );
        let at = Timestamp::from_millis(1_790_000_000_123);
        assert!(matches!(signal(&deadline(at)), Some(Signal::Deadline(Some(told))) if told == at));
        assert!(matches!(
            signal(SOME_DEADLINE),
            Some(Signal::Deadline(None))
        ));
        assert!(signal("d soon").is_none());
        assert!(matches!(signal(BINDINGS), Some(Signal::Bindings)));
        assert!(signal("q 1 9 list").is_none());
        assert!(signal("x").is_none());
    }
}
