//! A TCP proxy a test can cut: between a node and its database, or a node and its clients, to
//! stand for a network partition of one link while the others stay up.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::net::{TcpListener, TcpStream};
use tokio::task::AbortHandle;

/// A proxy listening at [`Proxy::addr`], forwarding each connection to its target.
pub struct Proxy {
    /// Where it listens.
    pub addr: String,
    target: Arc<Mutex<String>>,
    cut: Arc<AtomicBool>,
    links: Arc<Mutex<Vec<AbortHandle>>>,
}

impl Proxy {
    /// A proxy listening on `listen` (`HOST:0` for a free port) forwarding to `target`.
    pub async fn start(listen: &str, target: &str) -> Proxy {
        let listener = TcpListener::bind(listen).await.expect("the proxy listens");
        let proxy = Proxy {
            addr: listener.local_addr().expect("an address").to_string(),
            target: Arc::new(Mutex::new(target.to_owned())),
            cut: Arc::default(),
            links: Arc::default(),
        };
        let (target, cut, links) = (proxy.target.clone(), proxy.cut.clone(), proxy.links.clone());
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if cut.load(Ordering::SeqCst) {
                    // Refused: closed at once, as a peer that is unreachable resets.
                    continue;
                }
                let to = target.lock().expect("the target").clone();
                let link = tokio::spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(&to).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                let mut links = links.lock().expect("the links");
                links.retain(|l| !l.is_finished());
                links.push(link.abort_handle());
            }
        });
        proxy
    }

    /// Forwards new connections to `target` from now on (a node restarted on a new port).
    pub fn retarget(&self, target: &str) {
        *self.target.lock().expect("the target") = target.to_owned();
    }

    /// Cuts the link: every connection through it ends, and new ones are refused.
    pub fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        for link in self.links.lock().expect("the links").drain(..) {
            link.abort();
        }
    }

    /// Restores the link.
    pub fn restore(&self) {
        self.cut.store(false, Ordering::SeqCst);
    }
}
