//! The process's own figures, under Prometheus's standard names: resident memory, CPU time and
//! open file descriptors, read from `/proc/self` at each scrape (on other systems, none).

use prometheus_client::collector::Collector;
use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;

use super::encode_one;

/// Linux's fixed unit of the CPU times in `/proc/self/stat` (`USER_HZ`).
const TICKS_PER_SECOND: f64 = 100.0;

/// Reads the process's figures when scraped.
#[derive(Debug)]
pub(super) struct Process;

impl Collector for Process {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        if let Some(bytes) = resident_bytes() {
            let help = "Resident memory of the weft process";
            let name = "process_resident_memory_bytes";
            encode_one(&mut encoder, name, help, ConstGauge::new(bytes))?;
        }
        if let Some(seconds) = cpu_seconds() {
            let help = "CPU time the weft process has used, user and system";
            encode_one(
                &mut encoder,
                "process_cpu_seconds",
                help,
                ConstCounter::new(seconds),
            )?;
        }
        if let Some(fds) = open_fds() {
            let help = "File descriptors the weft process holds open";
            encode_one(&mut encoder, "process_open_fds", help, ConstGauge::new(fds))?;
        }
        Ok(())
    }
}

/// `VmRSS` of `/proc/self/status`, in bytes.
fn resident_bytes() -> Option<i64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: i64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// User and system time of `/proc/self/stat` (its 14th and 15th fields), in seconds.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let (user, system): (u64, u64) = (fields.get(11)?.parse().ok()?, fields.get(12)?.parse().ok()?);
    Some((user + system) as f64 / TICKS_PER_SECOND)
}

/// Entries of `/proc/self/fd`.
fn open_fds() -> Option<i64> {
    let entries = std::fs::read_dir("/proc/self/fd").ok()?;
    i64::try_from(entries.count()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn the_process_figures_are_read_from_proc() {
        assert!(resident_bytes().is_some_and(|b| b > 1 << 20));
        assert!(open_fds().is_some_and(|n| n >= 3));
        // Busy work adds to the CPU time, a tick (10 ms) at a time.
        let before = cpu_seconds().unwrap();
        let began = std::time::Instant::now();
        let mut x = 0u64;
        while cpu_seconds().unwrap() <= before {
            x = std::hint::black_box(x.wrapping_add(1));
            assert!(
                began.elapsed().as_secs() < 10,
                "the CPU time stays at {before}"
            );
        }
    }
}
