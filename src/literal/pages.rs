//! Fresh result buffers: recycled from values that just died when one of the right size is at
//! hand, else new and backed by transparent huge pages where the kernel allows it.
//!
//! Recycling: a large buffer whose last holder drops it is kept in a small pool
//! (`literal::recycle`) instead of being returned to the allocator; the next fresh buffer of
//! about its size reuses it, its pages already mapped and touched, so the result is written at
//! memory speed without the page faults and zeroing of a new mapping.
//!
//! Algorithm: reserve the vector's capacity, then `madvise(MADV_HUGEPAGE)` the page-aligned part
//! of it before anything is written, so that the first touch of each 2 MiB-aligned stretch
//! faults in one huge page instead of 512 small ones. Reference: Linux
//! `Documentation/admin-guide/mm/transhuge.rst` ("madvise" mode: only regions advised with
//! MADV_HUGEPAGE get huge pages, which is this machine's default).
//!
//! Why: every element-wise op returns a new array. For a 64 MiB result the 16,384 small-page
//! faults of its first touch cost about three times the memory copy of the same bytes on the
//! development VM; with huge pages the cost falls to little more than zeroing. The advice is a
//! hint only: where it is refused (another OS, THP disabled) the buffer behaves exactly as before.

/// Buffers smaller than this gain nothing: no 2 MiB-aligned stretch would fit inside.
const MIN_BYTES: usize = 4 << 20;

/// An empty vector with room for `n` elements: a recycled one when the pool has one of about
/// that size, else a new one with its pages advised as huge when it is large.
pub fn fresh_vec<T: Send + 'static>(n: usize) -> Vec<T> {
    if n.saturating_mul(size_of::<T>()) >= MIN_BYTES
        && let Some(v) = crate::literal::recycle::take::<T>(n)
    {
        return v;
    }
    let mut v = Vec::with_capacity(n);
    advise_huge(v.as_mut_ptr() as usize, n.saturating_mul(size_of::<T>()));
    v
}

/// The items of `it` in a fresh vector (`fresh_vec`): for inputs built once and read many times
/// (a benchmark's operands, decoded arguments), so that they are backed by huge pages as NumPy's
/// large arrays are (NumPy advises MADV_HUGEPAGE on its own allocations). A stream over 4 KiB pages
/// restarts the hardware prefetcher at every page boundary.
pub fn collect_fresh<T: Send + 'static>(it: impl ExactSizeIterator<Item = T>) -> Vec<T> {
    let mut v = fresh_vec(it.len());
    v.clear();
    v.extend(it);
    v
}

/// `collect_fresh` of a slice: one copy, where an iterator may go element by element.
pub fn copy_fresh<T: Copy + Send + 'static>(s: &[T]) -> Vec<T> {
    let mut v = fresh_vec(s.len());
    v.clear();
    v.extend_from_slice(s);
    v
}

#[cfg(target_os = "linux")]
fn advise_huge(addr: usize, bytes: usize) {
    if bytes < MIN_BYTES {
        return;
    }
    const PAGE: usize = 4096;
    let start = addr.div_ceil(PAGE) * PAGE;
    let end = (addr + bytes) / PAGE * PAGE;
    if end > start {
        // SAFETY: the range lies inside an allocation this function's caller owns and has not
        // handed out; MADV_HUGEPAGE changes only how future faults are served, never contents
        // or validity, and its failure is harmless, so the result is ignored on purpose.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_addr: usize, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use super::fresh_vec;

    #[test]
    fn fresh_vec_has_room_and_no_elements() {
        for n in [0usize, 1, 1000, 3 << 20] {
            let v: Vec<f32> = fresh_vec(n);
            assert!(v.is_empty());
            assert!(v.capacity() >= n);
        }
        let mut v: Vec<u8> = fresh_vec(8 << 20);
        v.extend((0..8usize << 20).map(|i| i as u8));
        assert_eq!(v[12345], 12345usize as u8);
    }
}
