//! Property tests for gather and scatter, with random valid dimension numbers (batching
//! dimensions, implicit and explicit `index_vector_dim`, any placement of offset / window
//! dimensions). Each case builds an HLO module, verifies it and runs it with the reference
//! runtime; the expected values come from naive oracles written here:
//!
//! - `gather_matches_index_formula`: every output element against the seed's formula
//!   (Out -> G -> S -> clamp -> S_in + O_in), evaluated per element.
//! - `scatter_replace_undone_by_gather`: a scatter whose windows do not overlap, with a combiner
//!   returning the update, read back by the matching gather, gives the updates.
//! - `scatter_add_matches_index_formula`: scatter-add (recognised or interpreted combiner) with
//!   random indices, some outside, against the seed's formula applied update by update, skipping
//!   every window that does not fit whole.
//! - `scatter_add_is_one_hot_matmul`: row scatter-add equals operand + onehotᵀ · updates, with
//!   the matmul as three loops (indices may repeat or fall outside and be skipped).

use super::seeded::{Rng, seeded_trial};
use libtest_mimic::Trial;
use xla_spec::eval::{RunOptions, run};
use xla_spec::literal::{Array, Literal};
use xla_spec::verify::parse_and_verify;

pub fn trials() -> Vec<Trial> {
    vec![
        trial("gather_matches_index_formula", 2000, gather_case),
        trial("scatter_replace_undone_by_gather", 1500, scatter_undo_case),
        trial("scatter_add_is_one_hot_matmul", 1000, one_hot_case),
        trial("scatter_add_matches_index_formula", 1500, scatter_add_case),
    ]
}

fn trial(name: &str, cases: u32, f: fn(u64) -> Result<(), String>) -> Trial {
    seeded_trial("indexing", name, cases, f)
}

impl Rng {
    /// `k` distinct sorted values from `0..n`.
    fn sorted_subset(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut all: Vec<usize> = (0..n).collect();
        self.shuffle(&mut all);
        let mut s = all[..k].to_vec();
        s.sort();
        s
    }
}

fn list(v: &[usize]) -> String {
    let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("{{{}}}", s.join(","))
}

fn shape(ty: &str, dims: &[i64]) -> String {
    let s: Vec<String> = dims.iter().map(|x| x.to_string()).collect();
    format!("{ty}[{}]", s.join(","))
}

fn strides(dims: &[i64]) -> Vec<usize> {
    let mut s = vec![1usize; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * dims[i + 1].max(0) as usize;
    }
    s
}

fn linear(dims: &[i64], idx: &[i64]) -> usize {
    strides(dims)
        .iter()
        .zip(idx)
        .map(|(s, &i)| s * i as usize)
        .sum()
}

/// Every multi-index of `dims` in row-major order.
fn all_indices(dims: &[i64]) -> Vec<Vec<i64>> {
    let n: i64 = dims.iter().product();
    let mut out = Vec::with_capacity(n.max(0) as usize);
    let mut idx = vec![0i64; dims.len()];
    for _ in 0..n.max(0) {
        out.push(idx.clone());
        for d in (0..dims.len()).rev() {
            idx[d] += 1;
            if idx[d] < dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

fn run_module(hlo: &str, args: Vec<Literal>) -> Result<Literal, String> {
    let m = parse_and_verify(hlo).map_err(|e| format!("{e}\n{hlo}"))?;
    run(&m, args, &RunOptions::default())
        .map(|o| o.result)
        .map_err(|e| format!("{e}\n{hlo}"))
}

fn s32_values(l: &Literal) -> Result<(Vec<i64>, Vec<i32>), String> {
    let a = l.as_array().ok_or("expected an array result")?;
    let v = a.typed::<i32>().ok_or("expected an s32 result")?;
    Ok((a.dims().to_vec(), v.to_vec()))
}

/// Index-array layout shared by the gather and scatter generators: `batch` slots (sizes), the
/// index vector length `m`, and where `index_vector_dim` goes.
struct IndexLayout {
    slot_sizes: Vec<i64>,
    m: usize,
    ivd: usize,
    /// True when `index_vector_dim` equals the rank (implicit trailing 1).
    implicit: bool,
}

impl IndexLayout {
    fn random(r: &mut Rng, slot_sizes: Vec<i64>, m: usize) -> IndexLayout {
        let nb = slot_sizes.len();
        let implicit = m == 1 && r.percent(40);
        let ivd = if implicit {
            nb
        } else {
            r.range(0, nb as i64 + 1) as usize
        };
        IndexLayout {
            slot_sizes,
            m,
            ivd,
            implicit,
        }
    }
    fn dims(&self) -> Vec<i64> {
        let mut d = self.slot_sizes.clone();
        if !self.implicit {
            d.insert(self.ivd, self.m as i64);
        }
        d
    }
    /// Index-array dimension of batch slot `s`.
    fn dim_of_slot(&self, s: usize) -> usize {
        if !self.implicit && s >= self.ivd {
            s + 1
        } else {
            s
        }
    }
    /// Linear position of component `k` of the index vector of batch position `g`.
    fn at(&self, g: &[i64], k: usize) -> usize {
        let mut idx = g.to_vec();
        if !self.implicit {
            idx.insert(self.ivd, k as i64);
        }
        linear(&self.dims(), &idx)
    }
}

/// Operand dimension roles: batching, collapsed/inserted, or offset/window.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    Batch,
    Collapsed,
    Window,
}

struct Dnums {
    odims: Vec<i64>,
    roles: Vec<Role>,
    /// start_index_map / scatter_dims_to_operand_dims.
    to_operand: Vec<usize>,
    /// Batching pairs: (operand dim, batch slot).
    pairs: Vec<(usize, usize)>,
    layout: IndexLayout,
    /// Window size per operand dimension (1 for collapsed and batching dimensions).
    wsize: Vec<i64>,
    /// Output (or updates) positions of the window dimensions.
    window_pos: Vec<usize>,
}

impl Dnums {
    fn random(r: &mut Rng, unit_window_on_indexed: bool) -> Dnums {
        let rank = r.range(1, 4) as usize;
        let odims: Vec<i64> = (0..rank).map(|_| r.range(1, 5)).collect();
        let roles: Vec<Role> = (0..rank)
            .map(|_| match r.range(0, 10) {
                0..=1 => Role::Batch,
                2..=4 => Role::Collapsed,
                _ => Role::Window,
            })
            .collect();
        let mut cand: Vec<usize> = (0..rank).filter(|&d| roles[d] != Role::Batch).collect();
        r.shuffle(&mut cand);
        let m = r.range(0, cand.len() as i64 + 1) as usize;
        let to_operand = cand[..m].to_vec();
        let batch: Vec<usize> = (0..rank).filter(|&d| roles[d] == Role::Batch).collect();
        let extra = r.range(0, 3) as usize;
        let nb = batch.len() + extra;
        let mut slots: Vec<usize> = (0..nb).collect();
        r.shuffle(&mut slots);
        let mut slot_sizes: Vec<i64> = (0..nb)
            .map(|_| if r.percent(5) { 0 } else { r.range(1, 4) })
            .collect();
        let pairs: Vec<(usize, usize)> = batch.iter().copied().zip(slots).collect();
        for &(o, s) in &pairs {
            slot_sizes[s] = odims[o];
        }
        let layout = IndexLayout::random(r, slot_sizes, m);
        let wsize: Vec<i64> = (0..rank)
            .map(|d| match roles[d] {
                Role::Window if unit_window_on_indexed && to_operand.contains(&d) => 1,
                Role::Window => r.range(0, odims[d] + 1),
                _ => 1,
            })
            .collect();
        let n_window = roles.iter().filter(|&&x| x == Role::Window).count();
        let window_pos = r.sorted_subset(n_window + nb, n_window);
        Dnums {
            odims,
            roles,
            to_operand,
            pairs,
            layout,
            wsize,
            window_pos,
        }
    }
    fn dims_with(&self, role: Role) -> Vec<usize> {
        (0..self.odims.len())
            .filter(|&d| self.roles[d] == role)
            .collect()
    }
    fn window_dims(&self) -> Vec<usize> {
        self.dims_with(Role::Window)
    }
    /// Dimensions of the gather output / scatter updates.
    fn big_dims(&self) -> Vec<i64> {
        let w = self.window_dims();
        let rank = w.len() + self.layout.slot_sizes.len();
        let (mut kw, mut kb) = (0, 0);
        (0..rank)
            .map(|i| {
                if self.window_pos.contains(&i) {
                    kw += 1;
                    self.wsize[w[kw - 1]]
                } else {
                    kb += 1;
                    self.layout.slot_sizes[kb - 1]
                }
            })
            .collect()
    }
    /// The operand-side and index-side batching dimension lists.
    fn batching_lists(&self) -> (Vec<usize>, Vec<usize>) {
        self.pairs
            .iter()
            .map(|&(o, slot)| (o, self.layout.dim_of_slot(slot)))
            .unzip()
    }
    fn gather_attrs(&self) -> String {
        let (ops, idx) = self.batching_lists();
        let sizes: Vec<usize> = self.wsize.iter().map(|&s| s as usize).collect();
        format!(
            "offset_dims={}, collapsed_slice_dims={}, start_index_map={}, operand_batching_dims={}, start_indices_batching_dims={}, index_vector_dim={}, slice_sizes={}",
            list(&self.window_pos),
            list(&self.dims_with(Role::Collapsed)),
            list(&self.to_operand),
            list(&ops),
            list(&idx),
            self.layout.ivd,
            list(&sizes)
        )
    }
    fn scatter_attrs(&self) -> String {
        let (ops, idx) = self.batching_lists();
        format!(
            "update_window_dims={}, inserted_window_dims={}, scatter_dims_to_operand_dims={}, input_batching_dims={}, scatter_indices_batching_dims={}, index_vector_dim={}",
            list(&self.window_pos),
            list(&self.dims_with(Role::Collapsed)),
            list(&self.to_operand),
            list(&ops),
            list(&idx),
            self.layout.ivd
        )
    }
}

fn gather_case(seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let dn = Dnums::random(&mut r, false);
    let idims = dn.layout.dims();
    let hi = dn.odims.iter().max().copied().unwrap_or(1) + 2;
    let n_idx: i64 = idims.iter().product();
    let indices: Vec<i64> = (0..n_idx).map(|_| r.range(-2, hi + 1)).collect();
    let n_op: i64 = dn.odims.iter().product();
    let operand: Vec<i32> = (0..n_op as i32).map(|x| x * 7 + 3).collect();
    let hlo = format!(
        "HloModule m\nENTRY e {{\n  p = {} parameter(0)\n  i = {} parameter(1)\n  ROOT g = gather(p, i), {}\n}}\n",
        shape("s32", &dn.odims),
        shape("s64", &idims),
        dn.gather_attrs()
    );
    let args = vec![
        Literal::Array(
            Array::from_vec(dn.odims.clone(), operand.clone()).map_err(|e| e.to_string())?,
        ),
        Literal::Array(Array::from_vec(idims.clone(), indices.clone()).map_err(|e| e.to_string())?),
    ];
    let (got_dims, got) = s32_values(&run_module(&hlo, args)?)?;

    // The oracle: the seed's formula, element by element.
    let out_dims = dn.big_dims();
    if got_dims != out_dims {
        return Err(format!("dims {got_dims:?}, expected {out_dims:?}\n{hlo}"));
    }
    let window = dn.window_dims();
    let batch_positions: Vec<usize> = (0..out_dims.len())
        .filter(|i| !dn.window_pos.contains(i))
        .collect();
    for (lin, out) in all_indices(&out_dims).iter().enumerate() {
        let g: Vec<i64> = batch_positions.iter().map(|&p| out[p]).collect();
        let mut input = vec![0i64; dn.odims.len()];
        for (k, &d) in dn.to_operand.iter().enumerate() {
            let s = indices[dn.layout.at(&g, k)];
            input[d] += s.clamp(0, dn.odims[d] - dn.wsize[d]);
        }
        for &(o, slot) in &dn.pairs {
            input[o] += g[slot];
        }
        for (k, &d) in window.iter().enumerate() {
            input[d] += out[dn.window_pos[k]];
        }
        let want = operand[linear(&dn.odims, &input)];
        if got[lin] != want {
            return Err(format!(
                "output {out:?}: got {}, expected {want} (operand index {input:?})\n{hlo}\nindices {indices:?}",
                got[lin]
            ));
        }
    }
    Ok(())
}

fn scatter_undo_case(seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let dn = Dnums::random(&mut r, true);
    let idims = dn.layout.dims();
    let slots = dn.layout.slot_sizes.clone();
    // Start indices inside the operand, with no two windows meeting: the key (batch coordinates,
    // start vector) differs between windows, and windows are one element wide along every
    // indexed dimension.
    let n_idx: i64 = idims.iter().product();
    let mut indices = vec![0i64; n_idx.max(0) as usize];
    let mut seen = std::collections::HashSet::new();
    for g in all_indices(&slots) {
        let mut key: Vec<i64> = dn.pairs.iter().map(|&(_, s)| g[s]).collect();
        let mut found = false;
        for _attempt in 0..20 {
            let s: Vec<i64> = dn
                .to_operand
                .iter()
                .map(|&d| r.range(0, dn.odims[d] - dn.wsize[d] + 1))
                .collect();
            let mut k = key.clone();
            k.extend(&s);
            if seen.insert(k) {
                for (c, &v) in s.iter().enumerate() {
                    indices[dn.layout.at(&g, c)] = v;
                }
                found = true;
                break;
            }
        }
        if !found {
            // No room for distinct windows with these shapes: nothing to check.
            return Ok(());
        }
        key.clear();
    }
    let udims = dn.big_dims();
    let n_op: i64 = dn.odims.iter().product();
    let n_up: i64 = udims.iter().product();
    let operand: Vec<i32> = (0..n_op as i32).map(|x| -x - 1).collect();
    let updates: Vec<i32> = (0..n_up as i32).map(|x| x * 3 + 1000).collect();
    let gather_dn = dn.gather_attrs();
    let hlo = format!(
        "HloModule m\nreplace {{\n  a = s32[] parameter(0)\n  ROOT b = s32[] parameter(1)\n}}\nENTRY e {{\n  p = {} parameter(0)\n  i = {} parameter(1)\n  u = {} parameter(2)\n  s = scatter(p, i, u), {}, to_apply=replace\n  ROOT g = gather(s, i), {}\n}}\n",
        shape("s32", &dn.odims),
        shape("s64", &idims),
        shape("s32", &udims),
        dn.scatter_attrs(),
        gather_dn
    );
    let args = vec![
        Literal::Array(Array::from_vec(dn.odims.clone(), operand).map_err(|e| e.to_string())?),
        Literal::Array(Array::from_vec(idims.clone(), indices.clone()).map_err(|e| e.to_string())?),
        Literal::Array(Array::from_vec(udims.clone(), updates.clone()).map_err(|e| e.to_string())?),
    ];
    let (got_dims, got) = s32_values(&run_module(&hlo, args)?)?;
    if got_dims != udims || got != updates {
        return Err(format!(
            "gather(scatter(...)) gave {got_dims:?} {got:?}, expected the updates {udims:?} {updates:?}\n{hlo}\nindices {indices:?}"
        ));
    }
    Ok(())
}

fn one_hot_case(seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let m = r.range(1, 6);
    let d = r.range(1, 5);
    let b = r.range(0, 7);
    // Rows live along operand dimension `row` (0 or 1); the other dimension is the window.
    let row = r.range(0, 2) as usize;
    let odims = if row == 0 { vec![m, d] } else { vec![d, m] };
    let explicit = r.percent(50);
    let idims = if explicit { vec![b, 1] } else { vec![b] };
    let indices: Vec<i32> = (0..b).map(|_| r.range(-1, m + 1) as i32).collect();
    let operand: Vec<f32> = (0..m * d).map(|_| r.range(-8, 9) as f32).collect();
    let updates: Vec<f32> = (0..b * d).map(|_| r.range(-8, 9) as f32).collect();
    // The combiner is either recognised as add or interpreted (it adds, then adds zero).
    let combiner = if r.percent(50) {
        "  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n"
    } else {
        "  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  z = f32[] constant(0)\n  s = f32[] add(x, y)\n  ROOT t = f32[] add(s, z)\n"
    };
    let hlo = format!(
        "HloModule m\nsum {{\n{combiner}}}\nENTRY e {{\n  p = {} parameter(0)\n  i = {} parameter(1)\n  u = {} parameter(2)\n  ROOT s = scatter(p, i, u), update_window_dims={{1}}, inserted_window_dims={{{row}}}, scatter_dims_to_operand_dims={{{row}}}, index_vector_dim=1, to_apply=sum\n}}\n",
        shape("f32", &odims),
        shape("s32", &idims),
        shape("f32", &[b, d]),
    );
    let args = vec![
        Literal::Array(Array::from_vec(odims.clone(), operand.clone()).map_err(|e| e.to_string())?),
        Literal::Array(Array::from_vec(idims, indices.clone()).map_err(|e| e.to_string())?),
        Literal::Array(Array::from_vec(vec![b, d], updates.clone()).map_err(|e| e.to_string())?),
    ];
    let got = run_module(&hlo, args)?;
    let got = got
        .as_array()
        .and_then(|a| a.typed::<f32>())
        .ok_or("expected an f32 array")?;
    // onehot[k][i] = 1 when update row k targets operand row i (never for indices outside).
    let onehot: Vec<Vec<f32>> = (0..b)
        .map(|k| {
            (0..m)
                .map(|i| {
                    if indices[k as usize] as i64 == i {
                        1.0
                    } else {
                        0.0
                    }
                })
                .collect()
        })
        .collect();
    for i in 0..m {
        for j in 0..d {
            let mut acc = 0.0f32;
            for k in 0..b {
                acc += onehot[k as usize][i as usize] * updates[(k * d + j) as usize];
            }
            let at = if row == 0 { i * d + j } else { j * m + i } as usize;
            let want = operand[at] + acc;
            if got[at] != want {
                return Err(format!(
                    "row {i} column {j}: got {}, expected {want}\n{hlo}\nindices {indices:?}",
                    got[at]
                ));
            }
        }
    }
    Ok(())
}

fn scatter_add_case(seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let dn = Dnums::random(&mut r, false);
    let idims = dn.layout.dims();
    let hi = dn.odims.iter().max().copied().unwrap_or(1) + 2;
    let n_idx: i64 = idims.iter().product();
    let indices: Vec<i64> = (0..n_idx).map(|_| r.range(-2, hi)).collect();
    let udims = dn.big_dims();
    let n_op: i64 = dn.odims.iter().product();
    let n_up: i64 = udims.iter().product();
    let operand: Vec<i32> = (0..n_op as i32).map(|x| x * 1000).collect();
    let updates: Vec<i32> = (0..n_up as i32).map(|x| x + 1).collect();
    let combiner = if r.percent(50) {
        "  x = s32[] parameter(0)\n  y = s32[] parameter(1)\n  ROOT s = s32[] add(y, x)\n"
    } else {
        "  x = s32[] parameter(0)\n  y = s32[] parameter(1)\n  one = s32[] constant(1)\n  z = s32[] multiply(y, one)\n  ROOT s = s32[] add(x, z)\n"
    };
    let hlo = format!(
        "HloModule m\nsum {{\n{combiner}}}\nENTRY e {{\n  p = {} parameter(0)\n  i = {} parameter(1)\n  u = {} parameter(2)\n  ROOT s = scatter(p, i, u), {}, to_apply=sum\n}}\n",
        shape("s32", &dn.odims),
        shape("s64", &idims),
        shape("s32", &udims),
        dn.scatter_attrs()
    );
    let args = vec![
        Literal::Array(
            Array::from_vec(dn.odims.clone(), operand.clone()).map_err(|e| e.to_string())?,
        ),
        Literal::Array(Array::from_vec(idims.clone(), indices.clone()).map_err(|e| e.to_string())?),
        Literal::Array(Array::from_vec(udims.clone(), updates.clone()).map_err(|e| e.to_string())?),
    ];
    let (got_dims, got) = s32_values(&run_module(&hlo, args)?)?;

    // The oracle: every update index U, in order, through the seed's formula.
    let mut want = operand.clone();
    let window = dn.window_dims();
    let scatter_positions: Vec<usize> = (0..udims.len())
        .filter(|i| !dn.window_pos.contains(i))
        .collect();
    for u in all_indices(&udims) {
        let g: Vec<i64> = scatter_positions.iter().map(|&p| u[p]).collect();
        let mut start = vec![0i64; dn.odims.len()];
        for (k, &d) in dn.to_operand.iter().enumerate() {
            start[d] = indices[dn.layout.at(&g, k)];
        }
        for &(o, slot) in &dn.pairs {
            start[o] = g[slot];
        }
        let fits =
            (0..dn.odims.len()).all(|d| start[d] >= 0 && start[d] + dn.wsize[d] <= dn.odims[d]);
        if !fits {
            continue;
        }
        let mut target = start.clone();
        for (k, &d) in window.iter().enumerate() {
            target[d] += u[dn.window_pos[k]];
        }
        let at = linear(&dn.odims, &target);
        want[at] = want[at].wrapping_add(updates[linear(&udims, &u)]);
    }
    if got_dims != dn.odims || got != want {
        return Err(format!(
            "got {got_dims:?} {got:?}, expected {:?} {want:?}\n{hlo}\nindices {indices:?}",
            dn.odims
        ));
    }
    Ok(())
}
