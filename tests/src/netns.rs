//! Network namespaces for tests of several nodes: a node's process runs in a namespace of its
//! own, joined to the host's by a veth pair, so that its link can be slowed, made lossy (a
//! `tc` queueing discipline) or cut, as a machine's network can. Needs root and `ip` and `tc`
//! (iproute2).

use std::path::Path;
use std::process::Command;

/// A namespace and its link to the host's: the host's end at [`Netns::host_ip`], the
/// namespace's at [`Netns::ns_ip`]. Dropping it deletes both.
pub struct Netns {
    name: String,
    host_if: String,
    ns_if: String,
    /// The host's end of the link: where the namespace reaches the host's services.
    pub host_ip: String,
    /// The namespace's end: where the host reaches what listens inside.
    pub ns_ip: String,
}

impl Netns {
    /// Whether this process can make namespaces: it runs as root, with `ip` at hand.
    pub fn available() -> bool {
        let root = std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
            status
                .lines()
                .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"))
        });
        root && run(&["ip", "netns", "list"]).is_ok()
    }

    /// Namespace `index` (0 to 99) of this process, with its link up.
    pub fn create(index: u8) -> Result<Netns, String> {
        let tag = std::process::id() % 100_000;
        // Interface names hold at most 15 bytes.
        let netns = Netns {
            name: format!("weft-{tag}-{index}"),
            host_if: format!("wh{tag}x{index}"),
            ns_if: format!("wn{tag}x{index}"),
            host_ip: format!("10.{}.{index}.1", 200 + tag % 50),
            ns_ip: format!("10.{}.{index}.2", 200 + tag % 50),
        };
        let (name, host_if, ns_if) = (&netns.name, &netns.host_if, &netns.ns_if);
        let host_cidr = format!("{}/24", netns.host_ip);
        let ns_cidr = format!("{}/24", netns.ns_ip);
        run(&["ip", "netns", "add", name])?;
        run(&[
            "ip", "link", "add", host_if, "type", "veth", "peer", "name", ns_if,
        ])?;
        run(&["ip", "link", "set", ns_if, "netns", name])?;
        run(&["ip", "addr", "add", &host_cidr, "dev", host_if])?;
        run(&["ip", "link", "set", host_if, "up"])?;
        netns.inside(&["ip", "addr", "add", &ns_cidr, "dev", ns_if])?;
        netns.inside(&["ip", "link", "set", ns_if, "up"])?;
        netns.inside(&["ip", "link", "set", "lo", "up"])?;
        Ok(netns)
    }

    /// A command that runs `program` inside the namespace.
    pub fn command(&self, program: &Path) -> Command {
        let mut command = Command::new("ip");
        command.args(["netns", "exec", &self.name]).arg(program);
        command
    }

    /// Sets the queueing discipline `spec` on both ends of the link (`netem delay 5ms loss 1%`
    /// where the kernel has netem; `tbf rate 200kbit burst 8kbit latency 30ms`, a slow link
    /// that drops what waits longer than 30 ms, where it has only tbf); an empty `spec` takes
    /// it off.
    pub fn shape(&self, spec: &str) -> Result<(), String> {
        let words: Vec<&str> = spec.split_whitespace().collect();
        for (inside, dev) in [(false, &self.host_if), (true, &self.ns_if)] {
            let mut args = vec!["tc", "qdisc"];
            match words.is_empty() {
                true => args.extend(["del", "dev", dev, "root"]),
                false => args.extend(["replace", "dev", dev, "root"]),
            }
            args.extend(&words);
            let done = match inside {
                true => self.inside(&args),
                false => run(&args),
            };
            // Taking off what was never set is no failure.
            if !words.is_empty() {
                done?;
            }
        }
        Ok(())
    }

    /// Cuts the link (`up` false) or restores it: the namespace then reaches nothing outside.
    pub fn link(&self, up: bool) -> Result<(), String> {
        let state = if up { "up" } else { "down" };
        run(&["ip", "link", "set", &self.host_if, state])
    }

    fn inside(&self, args: &[&str]) -> Result<(), String> {
        let mut all = vec!["ip", "netns", "exec", &self.name];
        all.extend(args);
        run(&all)
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        // Deleting the namespace deletes its end of the pair, and so the pair.
        let _ = run(&["ip", "netns", "del", &self.name]);
        let _ = run(&["ip", "link", "del", &self.host_if]);
    }
}

/// Runs `args` (program first); its error output if it fails.
fn run(args: &[&str]) -> Result<(), String> {
    let output = Command::new(args[0])
        .args(&args[1..])
        .output()
        .map_err(|e| format!("{}: {e}", args.join(" ")))?;
    match output.status.success() {
        true => Ok(()),
        false => Err(format!(
            "{}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        )),
    }
}
