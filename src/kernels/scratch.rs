//! Per-thread reuse of the kernels' packing buffers.
//!
//! Why: a GEMM packs its operands into buffers of a few hundred KiB per call. Fresh from the
//! allocator, buffers that large are new mappings (glibc serves them with `mmap` and unmaps them
//! on free), so every call paid a page fault and a zeroing per 4 KiB page: on a 256 x 256 x 256
//! F64 product, a third of the time went to the kernel's page-fault path. Each thread (the pool's
//! workers and the interpreter's) keeps the few buffers it last used, by element type, and the
//! next call of the same thread takes them back with their pages mapped and warm in its caches.

use std::any::Any;
use std::cell::RefCell;
use std::ops::{Deref, DerefMut};

/// Buffers a thread keeps at most, and the largest it keeps (bytes): packing buffers are sized
/// from the caches, so anything larger is a one-off.
const KEPT: usize = 6;
const MAX_BYTES: usize = 16 << 20;

thread_local! {
    static FREE: RefCell<Vec<Box<dyn Any>>> = const { RefCell::new(Vec::new()) };
}

/// Bytes every buffer's first element is aligned to: a cache line, so that a packed panel's
/// vectors never straddle two lines. The allocator's large blocks start 16 bytes past a page
/// boundary, where every 64-byte load of a packed B panel was split over two lines (AVX-512
/// F64 4096^3 on two threads of a Xeon, best of paired calls: 128-130 GFLOP/s unaligned,
/// 133-135 aligned; one thread could not tell them apart).
const ALIGN: usize = 64;

/// A vector of `T` borrowed from this thread's free buffers (or new), returned to them on drop.
/// Its elements are `v[off..off + len]`, the first of them on an `ALIGN`-byte boundary.
pub struct Scratch<T: 'static> {
    v: Vec<T>,
    off: usize,
    len: usize,
}

/// Elements of slack that let a buffer's start move up to the next `ALIGN` boundary.
fn slack<T>() -> usize {
    ALIGN / size_of::<T>().max(1)
}

impl<T: Copy + 'static> Scratch<T> {
    /// Wraps `v` (at least `n` + `slack` long) as `n` elements from its first aligned one.
    fn aligned(v: Vec<T>, n: usize) -> Scratch<T> {
        let off = v.as_ptr().align_offset(ALIGN);
        // An element size that does not divide the alignment cannot be aligned: start at 0.
        let off = if off <= v.len() - n { off } else { 0 };
        Scratch { v, off, len: n }
    }

    /// `n` copies of `x`.
    pub fn filled(n: usize, x: T) -> Scratch<T> {
        let total = n + slack::<T>();
        let mut v = Self::reused(total);
        v.resize(total, x);
        Self::aligned(v, n)
    }

    /// `n` elements, those of a reused buffer left as they were (only growth is filled with
    /// `x`, and a buffer that had to grow may start elsewhere in its new allocation): for a
    /// caller that writes every element it later reads. Zero-filling a packing
    /// buffer the packing then overwrites cost as much as the packing itself on a few-row
    /// product (a 256 x 256 F32 B: 256 KiB written twice per call).
    ///
    /// A reused buffer keeps every element it had (only its view shrinks), and the buffer taken
    /// is the one with the fewest elements that still covers `n`: a few-row product asks for a
    /// small A buffer and a large B buffer on every call, and with the largest buffer taken and
    /// cut down for A, B's buffer was refilled from A's length on every call (the scanned RNN,
    /// 2% of its time in the filling).
    pub fn stale(n: usize, x: T) -> Scratch<T> {
        let total = n + slack::<T>();
        let mut v = Self::taken(total, Vec::len).unwrap_or_else(|| Vec::with_capacity(total));
        if v.len() < total {
            v.resize(total, x);
        }
        Self::aligned(v, n)
    }

    /// A free buffer of this type with room for `n` (see `taken`), emptied, or a new one.
    fn reused(n: usize) -> Vec<T> {
        match Self::taken(n, Vec::capacity) {
            Some(mut v) => {
                v.clear();
                v
            }
            None => Vec::with_capacity(n),
        }
    }

    /// The free buffer of this type whose `size` (its capacity, or its length where the
    /// elements are kept) is the smallest that covers `n`, else the one whose `size` is the
    /// largest (the least to grow), as it was left. Taking the smallest that covers keeps the
    /// large buffers for the large requests of the same call.
    fn taken(n: usize, size: fn(&Vec<T>) -> usize) -> Option<Vec<T>> {
        FREE.try_with(|f| {
            let mut f = f.try_borrow_mut().ok()?;
            let size = |b: &Box<dyn Any>| b.downcast_ref::<Vec<T>>().map(size);
            let i = (0..f.len())
                .filter_map(|i| Some((i, size(&f[i])?)))
                .min_by_key(|&(_, l)| if l >= n { (0, l) } else { (1, usize::MAX - l) })?
                .0;
            f.swap_remove(i).downcast::<Vec<T>>().ok()
        })
        .ok()
        .flatten()
        .map(|v| *v)
    }

    /// Resizes to `n` copies of `x` (the buffer keeps its allocation when it is large enough).
    pub fn refill(&mut self, n: usize, x: T) {
        let mut v = std::mem::take(&mut self.v);
        v.clear();
        v.resize(n + slack::<T>(), x);
        *self = Self::aligned(v, n);
    }
}

impl<T: 'static> Drop for Scratch<T> {
    fn drop(&mut self) {
        let v = std::mem::take(&mut self.v);
        if v.capacity() == 0 || v.capacity().saturating_mul(size_of::<T>()) > MAX_BYTES {
            return;
        }
        // During thread teardown the list may be gone; the buffer is then simply freed.
        let _ = FREE.try_with(|f| {
            if let Ok(mut f) = f.try_borrow_mut() {
                if f.len() >= KEPT {
                    f.remove(0);
                }
                f.push(Box::new(v));
            }
        });
    }
}

impl<T> Deref for Scratch<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.v[self.off..self.off + self.len]
    }
}

impl<T> DerefMut for Scratch<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.v[self.off..self.off + self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::Scratch;

    /// A buffer dropped on a thread comes back to that thread's next request, filled as asked;
    /// another type does not take it.
    #[test]
    fn buffers_come_back_to_the_same_thread() {
        let a = Scratch::filled(1000, 1.5f64);
        let ptr = a.as_ptr();
        drop(a);
        let other = Scratch::filled(10, 7u16);
        assert_eq!(&other[..], &[7u16; 10]);
        let mut b = Scratch::filled(500, 0.0f64);
        assert_eq!(b.as_ptr(), ptr);
        assert!(b.iter().all(|&x| x == 0.0) && b.len() == 500);
        b.refill(3, 2.0);
        assert_eq!(&b[..], &[2.0; 3]);
    }

    /// `stale` hands a reused buffer back with the elements it held (no fill: the caller writes
    /// what it reads), and a request larger than any kept buffer gets its length.
    #[test]
    fn stale_keeps_what_a_reused_buffer_held() {
        let mut a = Scratch::filled(6, 0i64);
        a.copy_from_slice(&[1, 2, 3, 4, 5, 6]);
        let ptr = a.as_ptr();
        drop(a);
        let b = Scratch::stale(4, -1i64);
        assert_eq!((&b[..], b.as_ptr()), (&[1, 2, 3, 4][..], ptr));
        drop(b);
        let c = Scratch::stale(2, -1i64);
        assert_eq!(&c[..], &[1, 2]);
        drop(c);
        let d = Scratch::stale(1000, -1i64);
        assert_eq!(d.len(), 1000);
    }

    /// A small and a large request on every call (a few-row product's A and B) each take back
    /// their own buffer, the large one with its elements (nothing refilled); and a large buffer
    /// lent to a small request (the only one kept) comes back whole; `filled` chooses alike.
    /// (On fresh threads, so that no other buffer is kept.)
    #[test]
    fn stale_takes_the_smallest_buffer_that_covers() {
        std::thread::spawn(|| {
            let mut big = Scratch::stale(5000, 0u32);
            big.fill(7);
            let small = Scratch::stale(10, 0u32);
            let (pb, ps) = (big.as_ptr(), small.as_ptr());
            drop(big);
            drop(small);
            let small = Scratch::stale(10, 0u32);
            let big = Scratch::stale(5000, 0u32);
            assert_eq!((small.as_ptr(), big.as_ptr()), (ps, pb));
            assert!(big.iter().all(|&x| x == 7));
        })
        .join()
        .unwrap();
        std::thread::spawn(|| {
            let mut big = Scratch::stale(5000, 0u32);
            big.fill(7);
            let pb = big.as_ptr();
            drop(big);
            let small = Scratch::stale(10, 0u32);
            assert_eq!(small.as_ptr(), pb);
            drop(small);
            let big = Scratch::stale(5000, 0u32);
            assert_eq!(big.as_ptr(), pb);
            assert!(
                big.iter().all(|&x| x == 7),
                "the buffer lent to a small request came back short"
            );
        })
        .join()
        .unwrap();
        // `filled` picks by capacity the same way, and fills what it takes.
        std::thread::spawn(|| {
            let (big, small) = (Scratch::filled(5000, 1u32), Scratch::filled(10, 1u32));
            let (pb, ps) = (big.as_ptr(), small.as_ptr());
            drop(big);
            drop(small);
            let small = Scratch::filled(10, 2u32);
            let big = Scratch::filled(5000, 3u32);
            assert_eq!((small.as_ptr(), big.as_ptr()), (ps, pb));
            assert!(small.iter().all(|&x| x == 2) && big.iter().all(|&x| x == 3));
        })
        .join()
        .unwrap();
    }

    /// Every buffer starts on a cache line, however the allocator placed it and whichever way
    /// it was taken (new, reused, refilled), for every element size.
    #[test]
    fn buffers_start_on_a_cache_line() {
        fn check<T: Copy + 'static>(x: T) {
            for n in [1, 7, 100, 5000, 70_000] {
                let a = Scratch::filled(n, x);
                assert_eq!(a.as_ptr() as usize % 64, 0);
                assert_eq!(a.len(), n);
                drop(a);
                let mut b = Scratch::stale(n + 3, x);
                assert_eq!((b.as_ptr() as usize % 64, b.len()), (0, n + 3));
                b.refill(2 * n, x);
                assert_eq!((b.as_ptr() as usize % 64, b.len()), (0, 2 * n));
                assert_eq!(b.as_mut_ptr() as usize % 64, 0);
            }
        }
        check(0u8);
        check(0u16);
        check(0u32);
        check(0f64);
        check([0f64; 2]);
    }
}
