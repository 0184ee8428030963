//! A pool of large element buffers that values no longer need, for the next fresh result.
//!
//! Why: every operation returns a new array, and a new 64 MiB buffer costs thousands of page
//! faults and the zeroing of its pages on first touch, more than an element-wise operation on it
//! (XLA's runtime keeps its buffers for the same reason). A large buffer whose last holder drops
//! it (`Buf`'s `Drop`) is kept here, per element type, and the kernels' next fresh buffer of about
//! its size (`pages::fresh_vec`) reuses it. The pool holds at most `POOL_BUFFERS`
//! buffers and `POOL_BYTES` bytes, dropping the oldest first; a buffer serves only a request of
//! at least half its size, so little memory sits idle.

/// Buffers smaller than this are left to the allocator, which recycles them well itself.
const MIN_BYTES: usize = 4 << 20;

/// Buffers the pool holds at most.
const POOL_BUFFERS: usize = 16;
/// Bytes the pool holds at most.
const POOL_BYTES: usize = 512 << 20;

struct Pool {
    /// (bytes, the `Vec<T>` boxed, its element type)
    buffers: Vec<(usize, Box<dyn std::any::Any + Send>, std::any::TypeId)>,
    bytes: usize,
}

fn pool() -> &'static std::sync::Mutex<Pool> {
    static POOL: std::sync::OnceLock<std::sync::Mutex<Pool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        std::sync::Mutex::new(Pool {
            buffers: vec![],
            bytes: 0,
        })
    })
}

/// Keeps a large vector whose contents are no longer needed for a later `fresh_vec`.
pub fn keep<T: Send + 'static>(mut v: Vec<T>) {
    let bytes = v.capacity().saturating_mul(size_of::<T>());
    if !(MIN_BYTES..=POOL_BYTES).contains(&bytes) {
        return;
    }
    v.clear();
    let Ok(mut p) = pool().lock() else { return };
    // Oldest first out, until the new one fits.
    while !p.buffers.is_empty() && (p.buffers.len() >= POOL_BUFFERS || p.bytes + bytes > POOL_BYTES)
    {
        let (b, _, _) = p.buffers.remove(0);
        p.bytes -= b;
    }
    p.bytes += bytes;
    p.buffers
        .push((bytes, Box::new(v), std::any::TypeId::of::<T>()));
}

/// A pooled vector of `T` with room for `n` and at most twice that, if any.
pub fn take<T: Send + 'static>(n: usize) -> Option<Vec<T>> {
    let mut p = pool().lock().ok()?;
    let want = std::any::TypeId::of::<T>();
    // The smallest that fits (the newest of equals): taking the first that fits let a 5 MiB
    // request take an 8 MiB buffer, so the next 8 MiB request found none and faulted in a new
    // mapping, while the kept 5 MiB buffers piled up unused until the pool was full.
    let fits = |(bytes, _, ty): &(usize, Box<dyn std::any::Any + Send>, std::any::TypeId)| {
        let cap = bytes / size_of::<T>().max(1);
        *ty == want && cap >= n && cap / 2 <= n
    };
    let (i, _) = p
        .buffers
        .iter()
        .enumerate()
        .filter(|(_, b)| fits(b))
        .min_by_key(|&(i, (bytes, _, _))| (*bytes, std::cmp::Reverse(i)))?;
    let (bytes, b, _) = p.buffers.remove(i);
    p.bytes -= bytes;
    b.downcast::<Vec<T>>().ok().map(|v| *v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kept buffer comes back for a request of about its size and type, once; a much smaller
    /// request or another type does not take it. (The pool is shared by the whole process, so
    /// the test uses an element type and sizes nothing else asks for.)
    #[test]
    fn kept_buffers_serve_requests_of_about_their_size() {
        type Odd = (u8, u16, u8, u32, u8);
        let n = (MIN_BYTES / size_of::<Odd>()) * 3;
        let v: Vec<Odd> = Vec::with_capacity(n);
        let ptr = v.as_ptr();
        keep(v);
        assert!(take::<(u16, u8, u32, u8, u8)>(n).is_none(), "another type");
        assert!(take::<Odd>(n / 3).is_none(), "less than half its size");
        let back = take::<Odd>(n - 10).expect("the kept buffer");
        assert_eq!((back.as_ptr(), back.len()), (ptr, 0));
        assert!(back.capacity() >= n);
        assert!(take::<Odd>(n - 10).is_none(), "taken once");
        // Small buffers are not kept.
        keep(Vec::<Odd>::with_capacity(16));
        assert!(take::<Odd>(16).is_none());
    }

    /// A request takes the smallest kept buffer that fits, whichever was kept last, so a larger
    /// one stays for the larger request that follows.
    #[test]
    fn the_smallest_buffer_that_fits_is_taken() {
        type Odd3 = (u8, u8, u8, u16, u32);
        let n = MIN_BYTES / size_of::<Odd3>() + 1;
        let small: Vec<Odd3> = Vec::with_capacity(n);
        let large: Vec<Odd3> = Vec::with_capacity(n * 3 / 2);
        let (ps, pl) = (small.as_ptr(), large.as_ptr());
        keep(small);
        keep(large);
        assert_eq!(take::<Odd3>(n).map(|v| v.as_ptr()), Some(ps));
        assert_eq!(take::<Odd3>(n * 5 / 4).map(|v| v.as_ptr()), Some(pl));
    }
}
