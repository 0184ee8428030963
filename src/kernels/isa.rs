//! Which vector instruction set loops are compiled for, chosen once at run time.
//!
//! The crate targets the baseline x86-64 (SSE2), so a loop the compiler vectorises runs 16 bytes
//! at a time unless a copy of it is compiled with wider target features. `per_isa!` compiles one
//! portable body three times (baseline, AVX2+FMA, AVX-512) and picks the widest the CPU runs,
//! after the multiversioning of `std::arch`'s documentation. The element-wise loops
//! (`eval::elementwise::lanes`) and the GEMM's packing of B use it.

/// A level a loop is compiled for, ordered by width (so that a cap is a `min`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Isa {
    Base,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

/// The copy to run: detected once. `XLA_SPEC_LANES=avx2` or `=base` caps it, to compare the
/// copies side by side on one machine (a request above what the CPU has is ignored).
#[inline]
pub fn isa() -> Isa {
    static ISA: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
    *ISA.get_or_init(|| {
        let cap = std::env::var("XLA_SPEC_LANES").unwrap_or_default();
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            let avx2 = cap != "base" && has!("avx2") && has!("fma");
            let avx512 = avx2
                && cap != "avx2"
                && has!("avx512f")
                && has!("avx512bw")
                && has!("avx512dq")
                && has!("avx512vl");
            if avx512 {
                return Isa::Avx512;
            }
            if avx2 {
                return Isa::Avx2;
            }
        }
        let _ = cap;
        Isa::Base
    })
}

/// Every level up to `isa()`, lowest first: the copies a test can run and compare.
pub fn levels() -> Vec<Isa> {
    let mut out = vec![Isa::Base];
    #[cfg(target_arch = "x86_64")]
    match isa() {
        Isa::Avx512 => out.extend([Isa::Avx2, Isa::Avx512]),
        Isa::Avx2 => out.push(Isa::Avx2),
        Isa::Base => {}
    }
    out
}

/// `$name` compiled once per ISA level: `$base` is the portable body (`#[inline(always)]`, so
/// each copy inlines it and its closures under its own target features). `$at` runs the copy of
/// a given level (tests compare the copies). With `at most Avx2`, `$name` runs no wider copy
/// than that (for bodies whose wider copy measured slower). A generic takes one bound path,
/// optionally after a lifetime (`S: 'static + Copy`, `F: Fn(S) -> T`): `macro_rules!` lets
/// nothing but a few separators follow a path, so a lifetime bound comes first.
macro_rules! per_isa {
    (
        $(#[$m:meta])*
        $vis:vis fn $name:ident / $at:ident
            <$($g:ident $(: $($l:lifetime +)? $b:path)?),*>($($a:ident: $t:ty),*)
            $(-> $r:ty)? = $base:ident $(, at most $cap:ident)?;
    ) => {
        $(#[$m])*
        #[inline]
        $vis fn $name<$($g $(: $($l +)? $b)?),*>($($a: $t),*) $(-> $r)? {
            let isa = $crate::kernels::isa::isa();
            $(let isa = isa.min($crate::kernels::isa::Isa::$cap);)?
            $at(isa, $($a),*)
        }

        /// The copy of level `isa`, which must not exceed what `isa()` reports.
        $(#[$m])*
        #[inline]
        $vis fn $at<$($g $(: $($l +)? $b)?),*>(
            isa: $crate::kernels::isa::Isa,
            $($a: $t),*
        ) $(-> $r)? {
            #[cfg(target_arch = "x86_64")]
            {
                use $crate::kernels::isa::Isa;
                #[target_feature(enable = "avx2,fma")]
                $(#[$m])*
                fn avx2<$($g $(: $($l +)? $b)?),*>($($a: $t),*) $(-> $r)? {
                    $base($($a),*)
                }
                #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
                $(#[$m])*
                fn avx512<$($g $(: $($l +)? $b)?),*>($($a: $t),*) $(-> $r)? {
                    $base($($a),*)
                }
                let best = $crate::kernels::isa::isa();
                match isa {
                    // SAFETY: `isa()` reports a level only when the CPU has its features.
                    Isa::Avx512 if best == Isa::Avx512 => return unsafe { avx512($($a),*) },
                    // SAFETY: as above; AVX-512 implies the AVX2 level.
                    Isa::Avx2 if best != Isa::Base => return unsafe { avx2($($a),*) },
                    _ => {}
                }
            }
            let _ = isa;
            $base($($a),*)
        }
    };
}
pub(crate) use per_isa;

/// Prefetch hints: into L1, into L2 (no-ops off x86-64).
#[cfg(target_arch = "x86_64")]
pub(crate) use std::arch::x86_64::{_MM_HINT_T0 as TO_L1, _MM_HINT_T1 as TO_L2};
#[cfg(not(target_arch = "x86_64"))]
pub(crate) const TO_L1: i32 = 0;
#[cfg(not(target_arch = "x86_64"))]
pub(crate) const TO_L2: i32 = 0;

/// Asks for the `bytes` from `base` on, a cache line at a time, into the cache `HINT` names.
#[inline(always)]
pub(crate) fn prefetch_lines<const HINT: i32>(base: *const u8, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let mut off = 0;
        while off < bytes {
            // SAFETY: a prefetch is a hint: it never faults and changes no memory, whatever the
            // address.
            unsafe { std::arch::x86_64::_mm_prefetch::<HINT>(base.wrapping_add(off).cast::<i8>()) };
            off += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (base, bytes);
}
