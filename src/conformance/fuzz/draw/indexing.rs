//! `gather` and `scatter` with general dimension numbers: every operand dimension is a window,
//! a collapsed (inserted) or a batching dimension; the index vector sits in any dimension of
//! the index array, or is implicit; batching dimensions pair an operand dimension with an index
//! dimension anywhere in the batch space.
//!
//! Gather's start indices reach past both ends (they are clamped, the book says how). Scatter's
//! are drawn so that every update window lies wholly inside the operand or wholly outside it:
//! a window that sticks out is skipped by XLA but left to the implementation by StableHLO, so
//! it has no single answer, while a window with no element inside changes nothing under either
//! reading. Scatter combines with `add`, `maximum` or `minimum` on values for which the order of
//! combination cannot matter (integers, small integers in floats), or replaces, with targets
//! drawn unique since the order of repeated replacements is unspecified.

use super::*;

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Window,
    /// Collapsed (gather) or inserted (scatter): one element wide, no result dimension.
    Dropped,
    Batching,
}

/// Dimension numbers shared by the two ops.
struct Plan {
    /// Operand dimensions and their roles.
    od: Vec<i64>,
    roles: Vec<Role>,
    /// `start_index_map` / `scatter_dims_to_operand_dims`.
    map: Vec<i64>,
    /// The batch space: the index array's dimensions without the index vector's.
    bs: Vec<i64>,
    /// Where the index vector sits among the index array's dimensions (`bs.len()` when implicit).
    ivd: usize,
    /// Whether the index vector has a dimension of its own.
    explicit: bool,
    /// For each operand batching dimension (in increasing order), its batch-space position.
    batch_pos: Vec<usize>,
}

impl Plan {
    fn draw(rng: &mut Rng, size: i64) -> Plan {
        let rank = rng.range(1, 3) as usize;
        let od: Vec<i64> = (0..rank)
            .map(|_| {
                if rng.chance(4) {
                    0
                } else {
                    rng.range(1, size.max(1))
                }
            })
            .collect();
        let mut roles: Vec<Role> = od
            .iter()
            .map(|&n| match rng.below(10) {
                // A one-element-wide role needs an element.
                0..=1 if n > 0 => Role::Batching,
                2..=4 if n > 0 => Role::Dropped,
                _ => Role::Window,
            })
            .collect();
        if roles.iter().all(|r| *r == Role::Batching) {
            roles[rng.below(rank)] = Role::Window;
        }
        let free: Vec<i64> = (0..rank as i64)
            .filter(|&i| roles[i as usize] != Role::Batching)
            .collect();
        let explicit = rng.chance(70);
        let k = if explicit {
            rng.range(1, free.len() as i64) as usize
        } else {
            1
        };
        let mut map = free.clone();
        for i in (1..map.len()).rev() {
            map.swap(i, rng.below(i + 1));
        }
        map.truncate(k);
        let batching: Vec<usize> = (0..rank).filter(|&i| roles[i] == Role::Batching).collect();
        let extra = rng.range(0, if batching.is_empty() { 2 } else { 1 }) as usize;
        let nb = batching.len() + extra;
        let mut slots: Vec<usize> = (0..nb).collect();
        for i in (1..nb).rev() {
            slots.swap(i, rng.below(i + 1));
        }
        let mut bs = vec![0i64; nb];
        let mut batch_pos = vec![];
        for (j, &b) in batching.iter().enumerate() {
            bs[slots[j]] = od[b];
            batch_pos.push(slots[j]);
        }
        for &s in &slots[batching.len()..] {
            bs[s] = if rng.chance(5) {
                0
            } else {
                rng.range(1, size.clamp(1, 3))
            };
        }
        let ivd = if explicit { rng.below(nb + 1) } else { nb };
        Plan {
            od,
            roles,
            map,
            bs,
            ivd,
            explicit,
            batch_pos,
        }
    }

    /// The index array's dimensions.
    fn index_dims(&self) -> Vec<i64> {
        let mut d = self.bs.clone();
        if self.explicit {
            d.insert(self.ivd, self.map.len() as i64);
        }
        d
    }

    /// The index-array dimension of batch-space position `j`.
    fn index_dim_of(&self, j: usize) -> usize {
        if self.explicit && j >= self.ivd {
            j + 1
        } else {
            j
        }
    }

    fn dims_of(&self, role: Role) -> Vec<i64> {
        (0..self.od.len() as i64)
            .filter(|&i| self.roles[i as usize] == role)
            .collect()
    }

    /// The batching attributes (`operand_batching_dims` or `input_batching_dims` first), or
    /// nothing when there are none.
    fn batching_attrs(&self, operand_key: &str, index_key: &str) -> String {
        let ob = self.dims_of(Role::Batching);
        if ob.is_empty() {
            return String::new();
        }
        let ib: Vec<i64> = self
            .batch_pos
            .iter()
            .map(|&j| self.index_dim_of(j) as i64)
            .collect();
        format!(
            ", {operand_key}={{{}}}, {index_key}={{{}}}",
            list(&ob),
            list(&ib)
        )
    }

    /// The index array holding `vectors` (one per batch point, in row-major order).
    fn index_literal(&self, it: ElementType, vectors: &[Vec<i64>]) -> Literal {
        let dims = self.index_dims();
        let mut k = 0usize;
        array_with(it, &dims, || {
            let at = unravel(k, &dims);
            k += 1;
            let mut g = at.clone();
            let comp = if self.explicit { g.remove(self.ivd) } else { 0 };
            let v = vectors[ravel(&g, &self.bs)][comp as usize];
            Scalar::from_i128(it, v as i128).unwrap_or(Scalar::zero(it))
        })
    }

    /// Where the index vector of batch point `g` and `start` put the window: the start position
    /// in every operand dimension (0 where nothing positions it).
    fn start(&self, g: &[i64], vector: &[i64]) -> Vec<i64> {
        let mut s = vec![0i64; self.od.len()];
        for (k, &m) in self.map.iter().enumerate() {
            s[m as usize] = vector[k];
        }
        for (b, &j) in self.dims_of(Role::Batching).iter().zip(&self.batch_pos) {
            s[*b as usize] = g[j];
        }
        s
    }
}

fn list(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn unravel(mut k: usize, dims: &[i64]) -> Vec<i64> {
    let mut idx = vec![0i64; dims.len()];
    for d in (0..dims.len()).rev() {
        let n = dims[d].max(1) as usize;
        idx[d] = (k % n) as i64;
        k /= n;
    }
    idx
}

fn ravel(idx: &[i64], dims: &[i64]) -> usize {
    idx.iter()
        .zip(dims)
        .fold(0usize, |acc, (&i, &d)| acc * d as usize + i as usize)
}

/// A value in `lo..=hi` that the index type holds (clipped to its range).
fn index_value(it: ElementType, lo: i64, hi: i64, rng: &mut Rng) -> i64 {
    let tlo = lowest(it).as_i128().unwrap_or(0).max(i64::MIN as i128) as i64;
    let thi = highest(it).as_i128().unwrap_or(0).min(i64::MAX as i128) as i64;
    let (lo, hi) = (lo.clamp(tlo, thi), hi.clamp(tlo, thi));
    rng.range(lo.min(hi), hi.max(lo))
}

/// The type's extremes, which the reference and every backend must treat as out of range.
fn extreme(it: ElementType, rng: &mut Rng) -> i64 {
    let hi = highest(it).as_i128().unwrap_or(0).min(i64::MAX as i128) as i64;
    if it.is_signed_int() && rng.chance(50) {
        lowest(it).as_i128().unwrap_or(0) as i64
    } else {
        hi
    }
}

const INDEX_TYPES: &[ElementType] = &[S8, S16, S32, S64, U8, U16, U32, U64];

pub(super) fn gather(rng: &mut Rng, size: i64) -> Draft {
    let p = Plan::draw(rng, size);
    let t = rng.pick(EVERY);
    let it = rng.pick(INDEX_TYPES);
    let slice: Vec<i64> =
        p.od.iter()
            .zip(&p.roles)
            .map(|(&n, r)| match r {
                Role::Window => rng.range(0, n),
                _ => 1,
            })
            .collect();
    let windows = p.dims_of(Role::Window).len();
    let out_rank = windows + p.bs.len();
    let mut offset: Vec<i64> = (0..out_rank as i64).collect();
    while offset.len() > windows {
        let i = rng.below(offset.len());
        offset.remove(i);
    }
    let points: i64 = p.bs.iter().product();
    let vectors: Vec<Vec<i64>> = (0..points)
        .map(|_| {
            p.map
                .iter()
                .map(|&m| {
                    let room = p.od[m as usize] - slice[m as usize];
                    // Past either end now and then: starts are clamped into the operand.
                    if rng.chance(10) {
                        extreme(it, rng)
                    } else {
                        index_value(it, -2, room + 2, rng)
                    }
                })
                .collect()
        })
        .collect();
    let line = format!(
        "r = gather(p0, p1), offset_dims={{{}}}, collapsed_slice_dims={{{}}}, start_index_map={{{}}}, index_vector_dim={}, slice_sizes={{{}}}{}",
        list(&offset),
        list(&p.dims_of(Role::Dropped)),
        list(&p.map),
        p.ivd,
        list(&slice),
        p.batching_attrs("operand_batching_dims", "start_indices_batching_dims")
    );
    Draft {
        family: "gather",
        op: "gather".into(),
        hlo: module(&[line], &[shape(t, &p.od), shape(it, &p.index_dims())], ""),
        args: one(vec![array(rng, t, &p.od), p.index_literal(it, &vectors)]),
        approximate: false,
        elementwise: false,
        zero_sign_free: false,
    }
}

pub(super) fn scatter(rng: &mut Rng, size: i64) -> Draft {
    let p = Plan::draw(rng, size);
    let it = rng.pick(INDEX_TYPES);
    let combiner = rng.pick(&["add", "maximum", "minimum", "replace"]);
    let t = match combiner {
        "add" => rng.pick(&[S8, S32, S64, U8, U32, F16, BF16, F32, F64, C64]),
        "replace" => rng.pick(EVERY),
        _ => rng.pick(NUMERIC),
    };
    // The window's extent in each operand dimension.
    let ws: Vec<i64> =
        p.od.iter()
            .zip(&p.roles)
            .map(|(&n, r)| match r {
                Role::Window => rng.range(0, n),
                _ => 1,
            })
            .collect();
    let window_dims = p.dims_of(Role::Window);
    let urank = window_dims.len() + p.bs.len();
    let mut uwd: Vec<i64> = (0..urank as i64).collect();
    while uwd.len() > window_dims.len() {
        let i = rng.below(uwd.len());
        uwd.remove(i);
    }
    let mut ud = vec![0i64; urank];
    let (mut w, mut b) = (0, 0);
    for (j, u) in ud.iter_mut().enumerate() {
        if uwd.contains(&(j as i64)) {
            *u = ws[window_dims[w] as usize];
            w += 1;
        } else {
            *u = p.bs[b];
            b += 1;
        }
    }
    let points = p.bs.iter().product::<i64>() as usize;
    let empty_window = ws.contains(&0);
    let mut used = std::collections::HashSet::new();
    let vectors: Vec<Vec<i64>> = (0..points)
        .map(|k| {
            let g = unravel(k, &p.bs);
            let inside = |rng: &mut Rng| -> Vec<i64> {
                p.map
                    .iter()
                    .map(|&m| index_value(it, 0, p.od[m as usize] - ws[m as usize], rng))
                    .collect()
            };
            let outside = |rng: &mut Rng| -> Vec<i64> {
                let at = rng.below(p.map.len());
                p.map
                    .iter()
                    .enumerate()
                    .map(|(j, &m)| {
                        let (n, w) = (p.od[m as usize], ws[m as usize]);
                        if j != at {
                            index_value(it, -2, n + 2, rng)
                        } else if rng.chance(15) {
                            extreme(it, rng)
                        } else if it.is_unsigned_int() || rng.chance(50) {
                            n + rng.range(0, 2)
                        } else {
                            -w - rng.range(0, 2)
                        }
                    })
                    .collect()
            };
            if rng.chance(20) {
                return outside(rng);
            }
            let v = inside(rng);
            if combiner != "replace" || empty_window {
                return v;
            }
            // Replacing twice at one target leaves the order to the implementation: a window
            // that would land on a target already taken goes outside instead.
            let start = p.start(&g, &v);
            let targets: Vec<Vec<i64>> = (0..ws.iter().product::<i64>() as usize)
                .map(|e| {
                    let off = unravel(e, &ws);
                    start.iter().zip(&off).map(|(s, o)| s + o).collect()
                })
                .collect();
            if targets.iter().any(|x| used.contains(x)) {
                outside(rng)
            } else {
                used.extend(targets);
                v
            }
        })
        .collect();
    let (body, values) = match combiner {
        "replace" => (
            "  a = {s} parameter(0)\n  ROOT b = {s} parameter(1)".to_string(),
            false,
        ),
        op => (
            format!(
                "  a = {{s}} parameter(0)\n  b = {{s}} parameter(1)\n  ROOT c = {{s}} {op}(a, b)"
            ),
            // Integer sums wrap the same in any order; float sums need small integers to be exact.
            op == "add" && t.is_floating(),
        ),
    };
    let s0 = shape(t, &[]);
    let comp = format!("comb {{\n{}\n}}\n\n", body.replace("{s}", &s0));
    let unique = if combiner == "replace" && rng.chance(50) {
        ", unique_indices=true"
    } else {
        ""
    };
    let line = format!(
        "r = scatter(p0, p1, p2), update_window_dims={{{}}}, inserted_window_dims={{{}}}, scatter_dims_to_operand_dims={{{}}}, index_vector_dim={}{}, to_apply=comb{unique}",
        list(&uwd),
        list(&p.dims_of(Role::Dropped)),
        list(&p.map),
        p.ivd,
        p.batching_attrs("input_batching_dims", "scatter_indices_batching_dims")
    );
    let (x, u) = if values {
        (tame(rng, t, &p.od), tame(rng, t, &ud))
    } else {
        (array(rng, t, &p.od), array(rng, t, &ud))
    };
    Draft {
        family: "scatter",
        op: format!("scatter {combiner}"),
        hlo: module(
            &[line],
            &[shape(t, &p.od), shape(it, &p.index_dims()), shape(t, &ud)],
            &comp,
        ),
        args: one(vec![x, p.index_literal(it, &vectors), u]),
        approximate: false,
        elementwise: false,
        // Sums start from a zero of either sign; max and min of +0 and -0 pick either.
        zero_sign_free: combiner != "replace",
    }
}
