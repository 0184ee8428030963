//! The data caches of the machine the kernels run on, read once at run time.
//!
//! Algorithm: Linux describes every cache of CPU 0 under
//! `/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}`; where that is missing (another
//! OS, a container without sysfs) x86's CPUID describes the same caches, one sub-leaf each, in
//! leaf 4 on Intel and leaf 0x8000001D on AMD (Intel SDM vol. 2A, "CPUID: Deterministic Cache
//! Parameters Leaf"; AMD APM vol. 3, "CPUID Fn8000_001D"). Both give ways, partitions, line size
//! and sets, whose product is the size. When neither answers, the sizes of a common x86 core of
//! the last decade stand in (32 KiB L1d, 1 MiB L2, 8 MiB L3).
//!
//! Why: the GEMM's block sizes are cache sizes in disguise (`gemm::Blocks`), and the machines
//! this runs on change from one day to the next (48 KiB L1d and 2 MiB L2 on one Xeon, 32 KiB and
//! 1 MiB on an EPYC), so constants tuned on one machine are wrong on the next.

use std::sync::OnceLock;

/// Whose core it is: the two x86 vendors' cores feed their L1 from L2 differently enough that
/// the best blocking differs (`gemm::Blocks::for_caches`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vendor {
    Amd,
    Intel,
    Other,
}

/// Sizes in bytes of the caches one core uses for data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caches {
    pub l1d: usize,
    pub l2: usize,
    /// The part of L3 this process can count on (`share_of_l3`), not always the whole cache.
    pub l3: usize,
    /// The L1 data cache's associativity (lines of one set).
    pub l1d_ways: usize,
    /// L2's associativity.
    pub l2_ways: usize,
    /// Where the sizes came from: `sysfs`, `cpuid` or `default`.
    pub source: &'static str,
    /// The CPU's vendor (CPUID leaf 0; `Other` off x86).
    pub vendor: Vendor,
}

/// How many L2s' worth of L3 one core can count on (`Caches::share_of_l3`).
pub const L3_PER_L2: usize = 16;

/// What stands in when the machine does not say.
pub const DEFAULT: Caches = Caches {
    l1d: 32 << 10,
    l2: 1 << 20,
    l3: 8 << 20,
    l1d_ways: 8,
    l2_ways: 8,
    source: "default",
    vendor: Vendor::Other,
};

impl Caches {
    /// These caches with L3 cut to what `cpus` cores can count on: at most `L3_PER_L2` times
    /// their L2s. A server's L3 is shared by dozens of cores, and a virtual machine is told the
    /// whole of it while it runs beside other tenants: a Xeon VM of 2 vCPUs reports 300 MiB of
    /// L3 (CPUID says 2 CPUs share it), so a 64 MiB operand counted as cached, was read in place
    /// as if it were, and an 8 x 4096 x 4096 product ran at half OpenBLAS's speed. The cap
    /// leaves a 2-vCPU Zen VM's 32 MiB L3 whole (1 MiB L2s).
    pub fn share_of_l3(self, cpus: usize) -> Caches {
        let cap = self
            .l2
            .saturating_mul(L3_PER_L2)
            .saturating_mul(cpus.max(1));
        Caches {
            l3: self.l3.min(cap).max(self.l2),
            ..self
        }
    }

    /// How many of `rows` rows, `stride` bytes apart, fall into the busiest set of the L1 data
    /// cache (64-byte lines): more than its ways, and rows read together evict each other.
    pub fn l1_rows_per_set(&self, rows: usize, stride: usize) -> usize {
        let sets = (self.l1d / (self.l1d_ways.max(1) * 64)).max(1);
        let mut count = vec![0usize; sets];
        for i in 0..rows {
            count[i.wrapping_mul(stride) / 64 % sets] += 1;
        }
        count.into_iter().max().unwrap_or(0)
    }
}

/// This machine's caches (detected once).
pub fn detect() -> Caches {
    static CACHES: OnceLock<Caches> = OnceLock::new();
    *CACHES.get_or_init(|| {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        Caches {
            vendor: vendor(),
            ..from_sysfs(std::path::Path::new("/sys/devices/system/cpu/cpu0/cache"))
                .or_else(from_cpuid)
                .unwrap_or(DEFAULT)
        }
        .share_of_l3(cpus)
    })
}

/// The vendor string of CPUID leaf 0.
#[cfg(target_arch = "x86_64")]
pub fn vendor() -> Vendor {
    // SAFETY: CPUID exists on every x86_64 CPU, and leaf 0 on every CPU that has it. (The
    // intrinsic is a safe function from Rust 1.91 on.)
    #[allow(unused_unsafe)]
    let l0 = unsafe { std::arch::x86_64::__cpuid(0) };
    match (l0.ebx, l0.edx, l0.ecx) {
        (0x6874_7541, 0x6974_6e65, 0x444d_4163) => Vendor::Amd, // "AuthenticAMD"
        (0x756e_6547, 0x4965_6e69, 0x6c65_746e) => Vendor::Intel, // "GenuineIntel"
        _ => Vendor::Other,
    }
}

#[cfg(not(target_arch = "x86_64"))]
pub fn vendor() -> Vendor {
    Vendor::Other
}

/// Parses a sysfs size such as `32K`, `1024K`, `32M` or a plain byte count.
pub fn parse_size(text: &str) -> Option<usize> {
    let t = text.trim();
    let (digits, unit) = match t.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => (&t[..i], t[i..].trim()),
        None => (t, ""),
    };
    let n: usize = digits.parse().ok()?;
    let scale = match unit {
        "" => 1,
        "K" | "KB" | "KiB" => 1 << 10,
        "M" | "MB" | "MiB" => 1 << 20,
        "G" | "GB" | "GiB" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(scale).filter(|&s| s > 0)
}

/// Reads the caches of one CPU's sysfs cache directory; `None` unless L1d and L2 are both there.
/// Sysfs does not name the vendor: the result says `Other`, and `detect` puts CPUID's in.
pub fn from_sysfs(dir: &std::path::Path) -> Option<Caches> {
    let mut found = Caches {
        source: "sysfs",
        l1d: 0,
        l2: 0,
        l3: 0,
        l1d_ways: DEFAULT.l1d_ways,
        l2_ways: DEFAULT.l2_ways,
        vendor: Vendor::Other,
    };
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let p = entry.path();
        if !p.file_name()?.to_str()?.starts_with("index") {
            continue;
        }
        let read = |f: &str| std::fs::read_to_string(p.join(f)).ok();
        let (Some(level), Some(ty), Some(size)) = (read("level"), read("type"), read("size"))
        else {
            continue;
        };
        let Some(size) = parse_size(&size) else {
            continue;
        };
        let ways = read("ways_of_associativity")
            .and_then(|w| w.trim().parse::<usize>().ok())
            .filter(|&w| w > 0);
        match (level.trim(), ty.trim()) {
            ("1", "Data" | "Unified") => {
                found.l1d = size;
                found.l1d_ways = ways.unwrap_or(found.l1d_ways);
            }
            ("2", "Data" | "Unified") => {
                found.l2 = size;
                found.l2_ways = ways.unwrap_or(found.l2_ways);
            }
            ("3", "Data" | "Unified") => found.l3 = size,
            _ => {}
        }
    }
    (found.l1d > 0 && found.l2 > 0).then_some(Caches {
        l3: if found.l3 > 0 { found.l3 } else { found.l2 },
        ..found
    })
}

#[cfg(target_arch = "x86_64")]
fn from_cpuid() -> Option<Caches> {
    use std::arch::x86_64::{__cpuid, __cpuid_count};
    // SAFETY: CPUID exists on every x86_64 CPU; leaves above the maximum the CPU reports are
    // never asked for. (The intrinsics are safe functions from Rust 1.91 on.)
    #[allow(unused_unsafe)]
    let (max_basic, max_ext) = unsafe { (__cpuid(0).eax, __cpuid(0x8000_0000).eax) };
    let leaf = if vendor() == Vendor::Amd && max_ext >= 0x8000_001D {
        0x8000_001D
    } else if max_basic >= 4 {
        4
    } else {
        return None;
    };
    let mut found = Caches {
        source: "cpuid",
        l1d: 0,
        l2: 0,
        l3: 0,
        l1d_ways: DEFAULT.l1d_ways,
        l2_ways: DEFAULT.l2_ways,
        vendor: vendor(),
    };
    for sub in 0..16 {
        // SAFETY: as above; `leaf` is at most the maximum the CPU reported.
        #[allow(unused_unsafe)]
        let r = unsafe { __cpuid_count(leaf, sub) };
        let ty = r.eax & 0x1f; // 0: no more caches, 1: data, 2: instruction, 3: unified
        if ty == 0 {
            break;
        }
        let level = (r.eax >> 5) & 0x7;
        let ways = ((r.ebx >> 22) & 0x3ff) as usize + 1;
        let parts = ((r.ebx >> 12) & 0x3ff) as usize + 1;
        let line = (r.ebx & 0xfff) as usize + 1;
        let sets = r.ecx as usize + 1;
        let size = ways * parts * line * sets;
        match (level, ty) {
            (1, 1 | 3) => (found.l1d, found.l1d_ways) = (size, ways),
            (2, 1 | 3) => (found.l2, found.l2_ways) = (size, ways),
            (3, 1 | 3) => found.l3 = size,
            _ => {}
        }
    }
    (found.l1d > 0 && found.l2 > 0).then_some(Caches {
        l3: if found.l3 > 0 { found.l3 } else { found.l2 },
        ..found
    })
}

#[cfg(not(target_arch = "x86_64"))]
fn from_cpuid() -> Option<Caches> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_as_sysfs_writes_them() {
        assert_eq!(parse_size("32K\n"), Some(32 << 10));
        assert_eq!(parse_size("1024K"), Some(1 << 20));
        assert_eq!(parse_size("32M"), Some(32 << 20));
        assert_eq!(parse_size("4096"), Some(4096));
        for bad in ["", "K", "12Q", "-1K", "0K", "99999999999999999999K"] {
            assert_eq!(parse_size(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_sysfs_tree_gives_its_data_caches() {
        let dir = std::env::temp_dir().join(format!("xla-spec-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (i, level, ty, size) in [
            (0, "1", "Data", "48K"),
            (1, "1", "Instruction", "32K"),
            (2, "2", "Unified", "2048K"),
            (3, "3", "Unified", "105M"),
        ] {
            let d = dir.join(format!("index{i}"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("level"), level).unwrap();
            std::fs::write(d.join("type"), ty).unwrap();
            std::fs::write(d.join("size"), size).unwrap();
            let ways = if level == "2" { "16\n" } else { "12\n" };
            std::fs::write(d.join("ways_of_associativity"), ways).unwrap();
        }
        let c = from_sysfs(&dir).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!((c.l1d, c.l2, c.l3), (48 << 10, 2 << 20, 105 << 20));
        assert_eq!((c.l1d_ways, c.l2_ways), (12, 16));
    }

    /// Rows 16 KiB apart all share one set of a 48 KiB 12-way L1 (64 sets of 64-byte lines);
    /// rows one line apart spread over all sets; rows 1 KiB apart over 4 sets.
    #[test]
    fn rows_per_set_follows_the_stride() {
        let c = Caches {
            l1d: 48 << 10,
            l1d_ways: 12,
            ..DEFAULT
        };
        assert_eq!(c.l1_rows_per_set(12, 16 << 10), 12);
        assert_eq!(c.l1_rows_per_set(12, 64), 1);
        assert_eq!(c.l1_rows_per_set(12, 1 << 10), 3);
        assert_eq!(c.l1_rows_per_set(12, 16 << 10 | 64), 1);
        assert_eq!(c.l1_rows_per_set(0, 64), 0);
    }

    /// CPUID's vendor agrees with the kernel's reading of it.
    #[test]
    fn the_vendor_is_the_one_linux_reports() {
        let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
            return;
        };
        let Some(id) = info.lines().find_map(|l| {
            l.strip_prefix("vendor_id")
                .map(|v| v.trim_start_matches([' ', '\t', ':']))
        }) else {
            return;
        };
        let expect = match id.trim() {
            "AuthenticAMD" => Vendor::Amd,
            "GenuineIntel" => Vendor::Intel,
            _ => Vendor::Other,
        };
        assert_eq!(vendor(), expect, "{id}");
        assert_eq!(detect().vendor, expect);
    }

    /// A VM's whole-socket L3 is cut to a few L2s per CPU; a small L3 is left whole, and no
    /// L3 is made smaller than L2.
    #[test]
    fn l3_is_cut_to_what_the_cores_can_count_on() {
        let xeon = Caches {
            l1d: 48 << 10,
            l2: 2 << 20,
            l3: 300 << 20,
            ..DEFAULT
        };
        assert_eq!(xeon.share_of_l3(2).l3, 64 << 20);
        assert_eq!(xeon.share_of_l3(64).l3, 300 << 20);
        let zen = Caches {
            l2: 1 << 20,
            l3: 32 << 20,
            ..DEFAULT
        };
        assert_eq!(zen.share_of_l3(2).l3, 32 << 20);
        assert_eq!(zen.share_of_l3(1).l3, 16 << 20);
        let tiny = Caches {
            l2: 1 << 20,
            l3: 1 << 20,
            ..DEFAULT
        };
        assert_eq!(tiny.share_of_l3(0).l3, 1 << 20);
    }

    #[test]
    fn this_machine_reports_plausible_caches() {
        let c = detect();
        eprintln!("caches here: {c:?}");
        assert!(
            c.l1d >= 4 << 10 && c.l1d <= c.l2 && c.l2 <= c.l3.max(c.l2),
            "{c:?}"
        );
    }
}
