//! How one length is transformed (`Plan`): the identity, the direct block kernel, the
//! four-step algorithm for long powers of two, or Bluestein's chirp-z around a power-of-two plan,
//! as the module above describes.

use super::*;

/// How one length is transformed.
pub(super) struct Plan {
    pub(super) n: usize,
    pub(super) kind: Kind,
}

pub(super) enum Kind {
    /// n ≤ 1: the transform is the identity.
    Identity,
    /// A power of two, W lines per block.
    Direct(Stages),
    /// Any other length, around a power-of-two plan of length m ≥ 2n − 1: blocked when that
    /// plan is `Direct`, one line at a time otherwise.
    Bluestein(Box<Bluestein>),
    /// A long power of two, one line at a time.
    FourStep(Box<FourStep>),
}

pub(super) struct Bluestein {
    /// e^(−πi·t²/n) for t < n.
    pub(super) chirp: Vec<C128>,
    /// The transform of the convolution kernel conj(chirp[|t|]) (wrapped to length m), over m.
    pub(super) bhat: Vec<C128>,
    pub(super) inner: Plan,
}

pub(super) struct FourStep {
    pub(super) n1: usize,
    pub(super) n2: usize,
    /// Length n1, over the n2 columns.
    pub(super) p1: Plan,
    /// Length n2, over the n1 rows.
    pub(super) p2: Plan,
    pub(super) twiddle: Twiddle,
}

impl Plan {
    /// The plan for `count` lines of length `n`.
    pub(super) fn new(n: usize, count: usize, isa: Isa) -> Plan {
        if n <= 1 {
            return Plan {
                n,
                kind: Kind::Identity,
            };
        }
        if n.is_power_of_two() {
            // A single line in a block would leave W − 1 lanes idle; the four-step path keeps
            // them busy (its columns and rows are blocks of W) once n ≥ 64 = 8 · 8.
            return if n > DIRECT_MAX || (count < W && n >= 64) {
                Plan::four_step(n)
            } else {
                Plan::direct(n)
            };
        }
        let m = (2 * n - 1).next_power_of_two();
        let inner = if m <= DIRECT_MAX {
            Plan::direct(m)
        } else {
            Plan::new(m, 1, isa)
        };
        // t² mod 2n keeps the angle's argument exact; the two-level roots spare a sine and
        // cosine per element (they were most of a long prime-length transform's time).
        let roots = Roots::new(2 * n);
        let chirp: Vec<C128> = fresh(n, |t| {
            roots.get((t as u128 * t as u128 % (2 * n as u128)) as usize)
        });
        let mut bhat = fresh(m, |_| C128::new(0.0, 0.0));
        bhat[0] = chirp[0].conj();
        for t in 1..n {
            bhat[t] = chirp[t].conj();
            bhat[m - t] = chirp[t].conj();
        }
        let io = Io::one_line(Mem::C128(bhat.as_mut_ptr()), 1.0 / m as f64);
        // SAFETY: one line of m elements, `bhat` itself, touched by nothing else.
        unsafe { inner.run(&io, isa, true) };
        Plan {
            n,
            kind: Kind::Bluestein(Box::new(Bluestein { chirp, bhat, inner })),
        }
    }

    pub(super) fn direct(n: usize) -> Plan {
        Plan {
            n,
            kind: Kind::Direct(Stages::new(n)),
        }
    }

    pub(super) fn four_step(n: usize) -> Plan {
        let n1 = 1 << (n.trailing_zeros() / 2);
        let n2 = n / n1;
        Plan {
            n,
            kind: Kind::FourStep(Box::new(FourStep {
                n1,
                n2,
                p1: Plan::direct(n1),
                p2: Plan::direct(n2),
                twiddle: Twiddle::new(n, n1),
            })),
        }
    }

    /// The rows of a block buffer for this plan, when it runs in blocks.
    pub(super) fn block_len(&self) -> Option<usize> {
        match &self.kind {
            Kind::Direct(_) => Some(self.n),
            Kind::Bluestein(b) => match b.inner.kind {
                Kind::Direct(_) => Some(b.inner.n),
                _ => None,
            },
            _ => None,
        }
    }

    /// Runs the transform `io` describes, on the kernel pool when `par` and it is worth it.
    ///
    /// # Safety
    /// `io`'s lines must lie inside its arrays, be disjoint from each other in `dst`, and not be
    /// touched by anything else while this runs; `src` and `dst` are either disjoint or the same
    /// array with the same lines.
    pub(super) unsafe fn run(&self, io: &Io, isa: Isa, par: bool) {
        if io.count == 0 {
            return;
        }
        match &self.kind {
            Kind::Identity => {
                if self.n == 1 {
                    for l in 0..io.count {
                        // SAFETY: element 0 of line l, in both arrays.
                        unsafe {
                            let mut v = io.src.read(io.li.offset(l));
                            if io.conj_in != io.conj_out {
                                v = v.conj();
                            }
                            io.dst.write(io.lo.offset(l), v * io.scale);
                        }
                    }
                }
            }
            // SAFETY: the caller's contract.
            Kind::FourStep(f) => unsafe { f.run(io, isa, par) },
            // SAFETY: the caller's contract.
            Kind::Bluestein(b) if self.block_len().is_none() => unsafe {
                b.run_lines(self.n, io, isa, par)
            },
            Kind::Direct(_) | Kind::Bluestein(_) => {
                let len = self.block_len().unwrap_or(self.n);
                let blocks = io.count.div_ceil(W);
                let tasks = if par && len * io.count >= PAR_MIN {
                    blocks.min(4 * threads())
                } else {
                    1
                };
                run_tasks(tasks, &|t| {
                    let bluestein = matches!(self.kind, Kind::Bluestein(_));
                    let mut work = Work {
                        a: Buf::new(len),
                        b: Buf::new(if bluestein { len } else { 0 }),
                    };
                    let (b0, b1) = (blocks * t / tasks, blocks * (t + 1) / tasks);
                    // SAFETY: the blocks of different tasks are different lines; the rest is
                    // the caller's contract.
                    unsafe { blocks_on(isa, self, b0, b1, io, &mut work) };
                });
            }
        }
    }
}

/// Runs `line(l, scratch, par)` for every line: in parallel over lines when there are enough of
/// them to keep every thread busy (each line then runs alone on its thread), else one line after
/// another, each using every thread.
pub(super) fn for_lines(
    count: usize,
    par: bool,
    scratch: &(dyn Fn() -> Vec<C128> + Sync),
    line: &(dyn Fn(usize, &mut Vec<C128>, bool) + Sync),
) {
    let th = threads();
    if par && count >= 2 * th {
        let tasks = count.min(4 * th);
        run_tasks(tasks, &|t| {
            let mut s = scratch();
            for l in count * t / tasks..count * (t + 1) / tasks {
                line(l, &mut s, false);
            }
            recycle::keep(s);
        });
    } else {
        let mut s = scratch();
        for l in 0..count {
            line(l, &mut s, par);
        }
        recycle::keep(s);
    }
}

impl FourStep {
    /// # Safety
    /// As `Plan::run`.
    pub(super) unsafe fn run(&self, io: &Io, isa: Isa, par: bool) {
        let (n1, n2) = (self.n1, self.n2);
        // The scratch between the two steps comes from the recycled buffers: a new mapping of
        // 8 MiB costs more in page faults than the transform. The first step writes all of it
        // before the second reads it, through raw pointers only, so it is never initialised.
        let scratch = || fresh_vec::<C128>(n1 * n2);
        for_lines(io.count, par, &scratch, &|l, z, par| {
            let zp = Mem::C128(z.as_mut_ptr());
            // Columns: element t1 of column t2 at t1·n2 + t2 of the line, into the same place
            // of `z`, times ω_n^(k1·t2).
            let cols = Io {
                count: n2,
                src: io.src,
                li: Lines::run(io.li.offset(l), io.li.stride, n2 * io.li.stride),
                dst: zp,
                lo: Lines::run(0, 1, n2),
                conj_in: io.conj_in,
                conj_out: false,
                scale: 1.0,
                twiddle: Some(&self.twiddle),
            };
            // SAFETY: line l of `src` and the private `z` (room for n1·n2); columns are
            // disjoint.
            unsafe { self.p1.run(&cols, isa, par) };
            // Rows: row k1 of `z` (contiguous) into X[k1 + n1·k2].
            let rows = Io {
                count: n1,
                src: zp,
                li: Lines::run(0, n2, 1),
                dst: io.dst,
                lo: Lines::run(io.lo.offset(l), io.lo.stride, n1 * io.lo.stride),
                conj_in: false,
                conj_out: io.conj_out,
                scale: io.scale,
                twiddle: None,
            };
            // SAFETY: `z`, all written by the first step, and line l of `dst`, whose source
            // the first step consumed.
            unsafe { self.p2.run(&rows, isa, par) };
        });
    }
}

impl Bluestein {
    /// One line at a time, for an inner plan too long to run in blocks.
    ///
    /// # Safety
    /// As `Plan::run`.
    pub(super) unsafe fn run_lines(&self, n: usize, io: &Io, isa: Isa, par: bool) {
        let m = self.inner.n;
        let zero = C128::new(0.0, 0.0);
        for_lines(io.count, par, &|| fresh(m, |_| zero), &|l, a, par| {
            let (ib, ob) = (io.li.offset(l), io.lo.offset(l));
            // The element-wise steps are as long as the transforms' passes: in parallel too.
            let each = |a: &mut [C128], f: &(dyn Fn(usize, &mut C128) + Sync)| {
                let body = |off: usize, c: &mut [C128]| {
                    for (i, v) in c.iter_mut().enumerate() {
                        f(off + i, v);
                    }
                };
                if par {
                    for_each_chunk(a, chunk(a.len()), &body);
                } else {
                    body(0, a);
                }
            };
            each(a, &|t, v| {
                *v = if t < n {
                    // SAFETY: element t of line l of `src`.
                    let x = unsafe { io.src.read(ib + t * io.li.stride) };
                    let x = if io.conj_in { x.conj() } else { x };
                    x * self.chirp[t]
                } else {
                    zero
                };
            });
            let fwd = |a: &mut Vec<C128>| {
                let one = Io::one_line(Mem::C128(a.as_mut_ptr()), 1.0);
                // SAFETY: the private scratch line.
                unsafe { self.inner.run(&one, isa, par) };
            };
            fwd(a);
            each(a, &|k, v| *v = (*v * self.bhat[k]).conj());
            fwd(a);
            each(&mut a[..n], &|t, v| {
                let y = v.conj() * self.chirp[t];
                let y = if io.conj_out { y.conj() } else { y } * io.scale;
                // SAFETY: element t of line l of `dst`, written by this element only.
                unsafe { io.dst.write(ob + t * io.lo.stride, y) };
            });
        });
    }
}
