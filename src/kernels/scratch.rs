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

/// A vector of `T` borrowed from this thread's free buffers (or new), returned to them on drop.
pub struct Scratch<T: 'static>(Vec<T>);

impl<T: Copy + 'static> Scratch<T> {
    /// `n` copies of `x`.
    pub fn filled(n: usize, x: T) -> Scratch<T> {
        let mut v = Self::reused(n);
        v.resize(n, x);
        Scratch(v)
    }

    /// `n` elements, those of a reused buffer left as they were (only growth is filled with
    /// `x`): for a caller that writes every element it later reads. Zero-filling a packing
    /// buffer the packing then overwrites cost as much as the packing itself on a few-row
    /// product (a 256 x 256 F32 B: 256 KiB written twice per call).
    pub fn stale(n: usize, x: T) -> Scratch<T> {
        let mut v = Self::taken().unwrap_or_else(|| Vec::with_capacity(n));
        v.truncate(n);
        v.resize(n, x);
        Scratch(v)
    }

    /// The largest free buffer of this type, emptied, or a new one with room for `n`.
    fn reused(n: usize) -> Vec<T> {
        match Self::taken() {
            Some(mut v) => {
                v.clear();
                v
            }
            None => Vec::with_capacity(n),
        }
    }

    /// The largest free buffer of this type, as it was left.
    fn taken() -> Option<Vec<T>> {
        FREE.try_with(|f| {
            let mut f = f.try_borrow_mut().ok()?;
            let i = (0..f.len())
                .filter(|&i| f[i].is::<Vec<T>>())
                .max_by_key(|&i| f[i].downcast_ref::<Vec<T>>().map_or(0, Vec::capacity))?;
            f.swap_remove(i).downcast::<Vec<T>>().ok()
        })
        .ok()
        .flatten()
        .map(|v| *v)
    }

    /// Resizes to `n` copies of `x` (the buffer keeps its allocation when it is large enough).
    pub fn refill(&mut self, n: usize, x: T) {
        self.0.clear();
        self.0.resize(n, x);
    }
}

impl<T: 'static> Drop for Scratch<T> {
    fn drop(&mut self) {
        let v = std::mem::take(&mut self.0);
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
        &self.0
    }
}

impl<T> DerefMut for Scratch<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.0
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

    /// `stale` hands a reused buffer back with the elements it held, filling only its growth.
    #[test]
    fn stale_keeps_what_a_reused_buffer_held_and_fills_growth() {
        let mut a = Scratch::filled(4, 0i64);
        a.copy_from_slice(&[1, 2, 3, 4]);
        drop(a);
        let b = Scratch::stale(6, -1i64);
        assert_eq!(&b[..], &[1, 2, 3, 4, -1, -1]);
        drop(b);
        let c = Scratch::stale(2, -1i64);
        assert_eq!(&c[..], &[1, 2]);
    }
}
