//! How much memory this process can take before the system ends it: what
//! the machine has free, and what its control groups (a container's limit,
//! a service's `MemoryMax`) leave. The default memory limit stays within
//! both ([`crate::default_memory_mb`]). Half the physical memory alone let
//! a run grow to 3.9 GiB on a machine whose files in `/dev/shm` held 17 of
//! its 24 GiB, where the kernel's OOM killer ended it without a result; and
//! dse over an HTTP parser's 32 bytes (a scratch harness over
//! picohttpparser) in a control group of 600 MiB was killed at 14.8 s with
//! nothing written but its tests, where it now stops at 504 MB and hands
//! over 62 548 tests at its 25 s limit.

use std::path::{Path, PathBuf};

/// `MemAvailable` of `/proc/meminfo` in MiB (Linux): what can be allocated
/// without swapping, page cache that can be dropped included.
pub fn available_memory_mb() -> Option<u64> {
    machine_mb().map(|(available, _)| available)
}

/// `MemAvailable` and `MemTotal` in MiB, from one read of `/proc/meminfo`.
pub fn machine_mb() -> Option<(u64, u64)> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    Some((meminfo_mb(&info, "MemAvailable:")?, meminfo_mb(&info, "MemTotal:")?))
}

/// Available memory below which a run stops ([`crate::Budget::sample_machine`])
/// on a machine of `physical_mb`: a thirty-second of it, and at least 128 MiB.
pub fn low_memory_mb(physical_mb: u64) -> u64 {
    (physical_mb / 32).max(128)
}

/// The value of `key` (a line `key   N kB`) in MiB.
pub(crate) fn meminfo_mb(info: &str, key: &str) -> Option<u64> {
    let line = info.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// The least room, in MiB, that a memory control group of this process or
/// one above it leaves (its limit less its usage, the pages of files
/// counted as free: the kernel reclaims them before it ends a process of
/// the group; two runs side by side in a group of 600 MiB, counting only
/// the inactive ones as `docker stats` does, stopped at 7.7 s with 60 MB
/// "left", most of the group's usage the tests they had written); `None`
/// where no group sets a limit or none can be read.
pub fn cgroup_room_mb() -> Option<u64> {
    tightest_group().map(|(room, _)| room >> 20)
}

/// The room and the limit, in bytes, of the memory control group (of this
/// process or above it) that leaves the least room.
pub fn tightest_group() -> Option<(u64, u64)> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    memory_groups(&own, Path::new("/sys/fs/cgroup"))
        .iter()
        .filter_map(|(dir, v2)| group_room(dir, *v2))
        .min()
}

/// Room below which a run in a control group limited to `limit` bytes
/// stops ([`crate::Budget::sample_machine`]): a sixteenth of the limit, and
/// at least 64 MiB. Other processes of the group (runs side by side in one
/// container) take what each run's default limit counted on when it began.
pub fn low_group_room(limit: u64) -> u64 {
    (limit / 16).max(64 << 20)
}

/// The directories of this process's memory control groups and of the
/// groups above them, from `/proc/self/cgroup` (`id:controllers:path` per
/// line) under the hierarchy's mount `root`, each with whether it is of
/// version 2 (`0::path`) or 1 (`N:…memory…:path`).
pub(crate) fn memory_groups(own: &str, root: &Path) -> Vec<(PathBuf, bool)> {
    let mut dirs = Vec::new();
    for line in own.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        let (base, v2) = if id == "0" && controllers.is_empty() {
            // Unified (version 2), mounted at the root or, on hybrid
            // systems, under it.
            let unified = root.join("unified");
            (if unified.is_dir() { unified } else { root.to_path_buf() }, true)
        } else if controllers.split(',').any(|c| c == "memory") {
            (root.join("memory"), false)
        } else {
            continue;
        };
        let mut path = Path::new(path.trim_start_matches('/'));
        loop {
            dirs.push((base.join(path), v2));
            match path.parent() {
                Some(p) => path = p,
                None => break,
            }
        }
    }
    dirs
}

/// A group's limit less its usage, and its limit, in bytes, the file
/// pages counted as free; `None` without a limit (or where it cannot be
/// read).
fn group_room(dir: &Path, v2: bool) -> Option<(u64, u64)> {
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
    let (limit, usage, prefix) = match v2 {
        true => ("memory.max", "memory.current", ""),
        false => ("memory.limit_in_bytes", "memory.usage_in_bytes", "total_"),
    };
    room(
        &read(limit)?,
        &read(usage)?,
        read("memory.stat").as_deref().unwrap_or(""),
        prefix,
    )
}

/// Limits at or past this many bytes are no limit (version 1 writes
/// "no limit" as the largest page-aligned `i64`).
const NO_LIMIT: u64 = 1 << 60;

/// The room a group's `limit` and `usage` (the files' contents) leave, the
/// file pages of its `stat` (`{prefix}active_file`, `{prefix}inactive_file`:
/// pages of files, not of a tmpfs, which are the anonymous ones' lists)
/// counted as free, and the limit.
pub(crate) fn room(limit: &str, usage: &str, stat: &str, prefix: &str) -> Option<(u64, u64)> {
    let limit: u64 = limit.trim().parse().ok().filter(|&l| l < NO_LIMIT)?;
    let usage: u64 = usage.trim().parse().ok()?;
    let pages = |key: &str| {
        stat.lines()
            .find_map(|l| {
                l.strip_prefix(prefix)?
                    .strip_prefix(key)?
                    .strip_prefix(' ')?
                    .trim()
                    .parse::<u64>()
                    .ok()
            })
            .unwrap_or(0)
    };
    let files = pages("active_file") + pages("inactive_file");
    Some((limit.saturating_sub(usage.saturating_sub(files)), limit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_lines_are_read_in_mib() {
        let info = "MemTotal:       24683520 kB\nMemFree:         4096000 kB\nMemAvailable:    4718592 kB\n";
        assert_eq!(meminfo_mb(info, "MemAvailable:"), Some(4608));
        assert_eq!(meminfo_mb(info, "MemTotal:"), Some(24105));
        assert_eq!(meminfo_mb(info, "SwapTotal:"), None);
    }

    #[test]
    fn low_memory_is_a_thirty_second_of_the_machine_and_at_least_128_mib() {
        assert_eq!(low_memory_mb(24105), 753);
        assert_eq!(low_memory_mb(2048), 128);
        assert_eq!(low_group_room(4 << 30), 256 << 20);
        assert_eq!(low_group_room(600 << 20), 64 << 20);
    }

    #[test]
    fn memory_groups_of_either_version_and_those_above() {
        let root = Path::new("/nonexistent-cgroup-root");
        let v1 = "9:name=systemd:/\n4:memory:/process_api/d41\n1:cpu:/\n0::/\n";
        let dirs = memory_groups(v1, root);
        let v1_dirs: Vec<_> = dirs.iter().filter(|(_, v2)| !v2).map(|(d, _)| d.clone()).collect();
        assert_eq!(
            v1_dirs,
            ["memory/process_api/d41", "memory/process_api", "memory"].map(|p| root.join(p))
        );
        // The unified line of a hybrid system reads the root (no
        // `unified` directory here).
        assert!(dirs.contains(&(root.to_path_buf(), true)));
        let v2 = "0::/system.slice/braid.service\n";
        let dirs: Vec<_> = memory_groups(v2, root).into_iter().map(|(d, _)| d).collect();
        assert_eq!(
            dirs,
            ["system.slice/braid.service", "system.slice", ""].map(|p| root.join(p))
        );
        assert!(memory_groups("garbage\n", root).is_empty());
    }

    #[test]
    fn room_is_the_limit_less_usage_with_file_pages_free() {
        let stat = "anon 1000\nfile 900\nshmem 100\ninactive_file 300\nactive_file 500\n";
        assert_eq!(room("4000\n", "2500\n", stat, ""), Some((2300, 4000)));
        // Version 2 without a limit, version 1's "no limit".
        assert_eq!(room("max\n", "2500\n", stat, ""), None);
        assert_eq!(room("9223372036854771712\n", "10\n", "", "total_"), None);
        // Usage past the limit leaves no room; missing stat lines free nothing.
        assert_eq!(room("1000", "1500", "", "total_"), Some((0, 1000)));
        // Version 1 reads the hierarchy's totals, not the group's own lines.
        let v1 = "active_file 10\ninactive_file 20\ntotal_active_file 100\ntotal_inactive_file 300\n";
        assert_eq!(room("1000", "900", v1, "total_"), Some((500, 1000)));
        assert_eq!(room("1000", "900", v1, ""), Some((130, 1000)));
    }
}
