//! Property test of loop fusion (`eval::fused`), named `prop::fusion::<name>`: random programs of
//! element-wise ops, evaluated with fusion on (groups computed tile by tile) and off (one op at a
//! time), must give the same results.
//!
//! The programs are random DAGs of 2 to 12 element-wise ops (unary, binary, compare, select,
//! clamp, convert, bitcast-convert, reduce-precision) over every integer and float type and pred,
//! on arrays of at least `MIN_ELEMENTS` elements whose length is rarely a multiple of `TILE`, so
//! groups span several tiles and a ragged last one. Operands mix parameters full of special
//! values (±0, ±inf, NaNs, extremes, subnormals), broadcasts of scalar constants, of scalar
//! parameters and of small arrays (rows, columns, single elements), integer and float iotas,
//! scalar select predicates and clamp bounds, values read several times, and a
//! non-element-wise op (`reverse`) now and then that groups must not swallow. Rank-2 programs give each instruction a random layout. Results must agree bit for
//! bit, except that any NaN matches any NaN (`book/src/conformance/tolerances.md`): a vectorised
//! loop and its scalar remainder may pick different operands' payloads. For the same reason a
//! float is bitcast only once its NaNs are replaced by one constant NaN.

use super::seeded::{Rng, seeded_trial};
use half::{bf16, f16};
use libtest_mimic::Trial;
use xla_spec::eval::fused::{MIN_ELEMENTS, Plan, TILE};
use xla_spec::eval::{RunOptions, run};
use xla_spec::literal::{Array, Literal};
use xla_spec::shape::Layout;
use xla_spec::types::ElementType as T;
use xla_spec::verify::parse_and_verify;

pub fn trials() -> Vec<Trial> {
    vec![
        seeded_trial("fusion", "fused_equals_op_by_op", 64, fused_equals_op_by_op),
        seeded_trial(
            "fusion",
            "fused_chunk_kernel_groups_equal_op_by_op",
            48,
            |seed| check(seed, true),
        ),
        seeded_trial(
            "fusion",
            "mapped_scatter_updates_equal_op_by_op",
            40,
            mapped_scatter,
        ),
    ]
}

const TYPES: [T; 12] = [
    T::S8,
    T::S16,
    T::S32,
    T::S64,
    T::U8,
    T::U16,
    T::U32,
    T::U64,
    T::F16,
    T::BF16,
    T::F32,
    T::F64,
];

/// A program being generated: its lines, its array values (all of the program's dimensions)
/// and its arguments.
struct Gen {
    rng: Rng,
    dims: Vec<i64>,
    lines: Vec<String>,
    /// Array values of the program's dimensions, by name, with their types.
    pool: Vec<(String, T)>,
    args: Vec<Literal>,
    next: usize,
    /// Only ops with chunk kernels (unary and binary ops, comparisons, selects, clamps): groups
    /// of them run through those kernels (`eval::fused`'s `chunks`).
    chunk_ops: bool,
}

impl Gen {
    fn name(&mut self, prefix: &str) -> String {
        loop {
            self.next += 1;
            let name = format!("{prefix}{}", self.next);
            // Type names (`c64`, `s16`, `u8`, ...) are not instruction names.
            if T::from_name(&name).is_none() {
                return name;
            }
        }
    }

    /// The array shape text of type `t`, with a random layout at rank 2.
    fn shape(&mut self, t: T) -> String {
        let d: Vec<String> = self.dims.iter().map(|x| x.to_string()).collect();
        let layout = match self.dims.len() {
            2 => *self.rng.pick(&["", "{1,0}", "{0,1}"]),
            _ => "",
        };
        format!("{}[{}]{layout}", ty(t), d.join(","))
    }

    fn line(&mut self, name: &str, shape: &str, rest: &str) {
        self.lines.push(format!("  {name} = {shape} {rest}"));
    }

    /// Adds an array value to the pool.
    fn def(&mut self, t: T, rest: &str) -> String {
        let name = self.name("v");
        let shape = self.shape(t);
        self.line(&name, &shape, rest);
        self.pool.push((name.clone(), t));
        name
    }

    /// A pool value, most often one of the latest (so chains form), of a type `ok` accepts.
    fn pick(&mut self, ok: impl Fn(T) -> bool) -> Option<(String, T)> {
        let fit: Vec<(String, T)> = self.pool.iter().filter(|(_, t)| ok(*t)).cloned().collect();
        if fit.is_empty() {
            return None;
        }
        let i = if self.rng.percent(60) {
            fit.len() - 1 - self.rng.below(fit.len().min(3))
        } else {
            self.rng.below(fit.len())
        };
        Some(fit[i].clone())
    }

    /// A rank-0 value of type `t`: a constant, or (sometimes) a scalar parameter.
    fn scalar(&mut self, t: T) -> String {
        let name = self.name("c");
        if self.rng.percent(25) {
            let k = self.args.len();
            self.lines
                .push(format!("  {name} = {}[] parameter({k})", ty(t)));
            let v = values(&mut self.rng, t, 1);
            self.args.push(literal(t, &[], v));
        } else {
            let text = constant(&mut self.rng, t);
            self.lines
                .push(format!("  {name} = {}[] constant({text})", ty(t)));
        }
        name
    }

    /// A scalar of type `t` broadcast to the program's dimensions, for one reader (`op` adds
    /// shared ones to the pool now and then).
    fn splat(&mut self, t: T) -> String {
        let c = self.scalar(t);
        let name = self.name("b");
        let shape = self.shape(t);
        self.line(&name, &shape, &format!("broadcast({c}), dimensions={{}}"));
        name
    }

    /// A small array parameter of type `t` broadcast to the program's dimensions: a row, a
    /// column, or a single element, for one reader.
    fn small_bcast(&mut self, t: T) -> String {
        let (src, map): (Vec<i64>, &str) = match self.dims[..] {
            [r, c] => match self.rng.below(4) {
                0 => (vec![c], "1"),
                1 => (vec![r], "0"),
                2 => (vec![r, 1], "0,1"),
                _ => (vec![1, c], "0,1"),
            },
            _ => (vec![1], "0"),
        };
        let k = self.args.len();
        let n: i64 = src.iter().product();
        let v = values(&mut self.rng, t, n as usize);
        self.args.push(literal(t, &src, v));
        let d: Vec<String> = src.iter().map(|x| x.to_string()).collect();
        let p = self.name("row");
        self.lines
            .push(format!("  {p} = {}[{}] parameter({k})", ty(t), d.join(",")));
        let name = self.name("b");
        let shape = self.shape(t);
        self.line(
            &name,
            &shape,
            &format!("broadcast({p}), dimensions={{{map}}}"),
        );
        name
    }

    /// An operand of type `t`: a pool value or a fresh broadcast.
    fn operand(&mut self, t: T) -> String {
        // (A broadcast of a small array is gathered tile by tile: its group has no chunk kernels.)
        if !self.chunk_ops && self.rng.percent(10) {
            return self.small_bcast(t);
        }
        if self.rng.percent(25) {
            return self.splat(t);
        }
        match self.pick(|u| u == t) {
            Some((n, _)) => n,
            None => self.splat(t),
        }
    }

    fn param(&mut self, t: T) -> String {
        let k = self.args.len();
        let n: i64 = self.dims.iter().product();
        let v = values(&mut self.rng, t, n as usize);
        let name = self.name("p");
        let shape = self.shape(t);
        self.lines
            .push(format!("  {name} = {shape} parameter({k})"));
        let layout = shape.find('{').map(|i| &shape[i..]).map(|l| {
            if l == "{0,1}" {
                Layout::new(vec![0, 1])
            } else {
                Layout::new(vec![1, 0])
            }
        });
        let mut a = literal(t, &self.dims, v).into_array().expect("an array");
        a.shape.layout = layout;
        self.args.push(Literal::Array(a));
        self.pool.push((name.clone(), t));
        name
    }

    /// One element-wise op on pool values; false when it added none (a barrier or a generator).
    fn op(&mut self) -> bool {
        let Some((x, t)) = self.pick(|_| true) else {
            return false;
        };
        let float = t.is_float();
        let pred = t == T::Pred;
        if self.chunk_ops && matches!(t, T::U32 | T::U64) && self.rng.percent(30) {
            // A rotation, `or` of two shifts of one value read by nothing else, which the chunk
            // kernels fold into one: amounts mostly splats near the width (inside it: the fast
            // loop; at or past it: zero), else any operand.
            let width = if t == T::U32 { 32 } else { 64 };
            let amount_splat = |g: &mut Gen| {
                let c = g.name("c");
                let k = g.rng.below(width + 3);
                g.lines.push(format!("  {c} = {}[] constant({k})", ty(t)));
                let b = g.name("b");
                let shape = g.shape(t);
                g.line(&b, &shape, &format!("broadcast({c}), dimensions={{}}"));
                b
            };
            let amount = |g: &mut Gen| {
                if g.rng.percent(70) {
                    amount_splat(g)
                } else {
                    g.operand(t)
                }
            };
            let (a, b) = (amount(self), amount(self));
            let shape = self.shape(t);
            let (l, r) = (self.name("l"), self.name("r"));
            self.line(&l, &shape, &format!("shift-left({x}, {a})"));
            self.line(&r, &shape, &format!("shift-right-logical({x}, {b})"));
            let (p, q) = if self.rng.percent(50) { (l, r) } else { (r, l) };
            if self.rng.percent(50) {
                // A threefry round, `xor(add(y, x), rotation of x)`, which the chunk kernels
                // fold into one as well (the add stays in the pool: later members may read it).
                let o = self.name("o");
                self.line(&o, &shape, &format!("or({p}, {q})"));
                let y = self.operand(t);
                let (u, v) = if self.rng.percent(50) {
                    (y, x.clone())
                } else {
                    (x.clone(), y)
                };
                let mut s = self.def(t, &format!("add({u}, {v})"));
                let (u, v) = if self.rng.percent(50) {
                    (s.clone(), o)
                } else {
                    (o, s.clone())
                };
                let mut z = self.def(t, &format!("xor({u}, {v})"));
                // More rounds on the last one's words (`y` its add, `x` its xor), which the chunk
                // kernels run as chains of up to four: only the last round's words join the
                // pool (so that later ops rarely read the others), amounts are mostly splats, and
                // the last add is sometimes read before its round's rotation (JAX's order for the
                // key injection), that reader sometimes an amount (which must be ready where the
                // chain runs).
                let more = if self.rng.percent(80) {
                    self.rng.below(6)
                } else {
                    0
                };
                if more > 0 {
                    self.pool.retain(|(v, _)| *v != s && *v != z);
                }
                for k in 0..more {
                    let last = k + 1 == more;
                    let (u, v) = if self.rng.percent(50) {
                        (s.clone(), z.clone())
                    } else {
                        (z.clone(), s.clone())
                    };
                    s = self.name("a");
                    self.line(&s, &shape, &format!("add({u}, {v})"));
                    let early = (last && self.rng.percent(30))
                        .then(|| self.def(t, &format!("add({s}, {s})")));
                    let a = match &early {
                        Some(e) if self.rng.percent(30) => e.clone(),
                        _ if self.rng.percent(85) => amount_splat(self),
                        _ => amount(self),
                    };
                    let b = if self.rng.percent(85) {
                        amount_splat(self)
                    } else {
                        amount(self)
                    };
                    let (l, r) = (self.name("l"), self.name("r"));
                    self.line(&l, &shape, &format!("shift-left({z}, {a})"));
                    self.line(&r, &shape, &format!("shift-right-logical({z}, {b})"));
                    let o = self.name("o");
                    self.line(&o, &shape, &format!("or({l}, {r})"));
                    let (u, v) = if self.rng.percent(50) {
                        (s.clone(), o)
                    } else {
                        (o, s.clone())
                    };
                    z = self.name("x");
                    self.line(&z, &shape, &format!("xor({u}, {v})"));
                    if last {
                        self.pool.push((s.clone(), t));
                        self.pool.push((z.clone(), t));
                    }
                }
            } else {
                self.def(t, &format!("or({p}, {q})"));
            }
            return true;
        }
        let roll = if self.chunk_ops {
            self.rng.below(74)
        } else {
            self.rng.below(100)
        };
        match roll {
            0..=19 => {
                let (op, out) = if pred {
                    ("not", t)
                } else if float {
                    let ops = [
                        "abs",
                        "negate",
                        "sign",
                        "ceil",
                        "floor",
                        "round-nearest-afz",
                        "round-nearest-even",
                        "is-finite",
                        "exponential",
                        "exponential-minus-one",
                        "log",
                        "log-plus-one",
                        "logistic",
                        "sqrt",
                        "rsqrt",
                        "cbrt",
                        "sine",
                        "cosine",
                        "tan",
                        "tanh",
                        "erf",
                    ];
                    let op = *self.rng.pick(&ops);
                    (op, if op == "is-finite" { T::Pred } else { t })
                } else if t.is_signed_int() {
                    let ops = [
                        "abs",
                        "negate",
                        "sign",
                        "not",
                        "count-leading-zeros",
                        "popcnt",
                    ];
                    (*self.rng.pick(&ops), t)
                } else {
                    let ops = ["negate", "not", "count-leading-zeros", "popcnt"];
                    (*self.rng.pick(&ops), t)
                };
                self.def(out, &format!("{op}({x})"));
            }
            20..=49 => {
                let ops: &[&str] = if pred {
                    &["and", "or", "xor", "add", "multiply", "maximum", "minimum"]
                } else if float {
                    &[
                        "add",
                        "subtract",
                        "multiply",
                        "divide",
                        "remainder",
                        "maximum",
                        "minimum",
                        "power",
                        "atan2",
                    ]
                } else {
                    &[
                        "add",
                        "subtract",
                        "multiply",
                        "divide",
                        "remainder",
                        "maximum",
                        "minimum",
                        "and",
                        "or",
                        "xor",
                        "shift-left",
                        "shift-right-arithmetic",
                        "shift-right-logical",
                        "power",
                    ]
                };
                let op = *self.rng.pick(ops);
                let y = self.operand(t);
                let (a, b) = if self.rng.percent(50) { (x, y) } else { (y, x) };
                self.def(t, &format!("{op}({a}, {b})"));
            }
            50..=59 => {
                let dir = *self.rng.pick(&["EQ", "NE", "LT", "LE", "GT", "GE"]);
                let y = self.operand(t);
                let total = if float && self.rng.percent(30) {
                    ", type=TOTALORDER"
                } else {
                    ""
                };
                self.def(
                    T::Pred,
                    &format!("compare({x}, {y}), direction={dir}{total}"),
                );
            }
            60..=67 => {
                let p = if self.rng.percent(25) {
                    self.scalar(T::Pred)
                } else {
                    self.operand(T::Pred)
                };
                let y = self.operand(t);
                self.def(t, &format!("select({p}, {x}, {y})"));
            }
            68..=73 if !pred => {
                let bound = |g: &mut Gen| {
                    if g.rng.percent(50) {
                        g.scalar(t)
                    } else {
                        g.operand(t)
                    }
                };
                let (lo, hi) = (bound(self), bound(self));
                self.def(t, &format!("clamp({lo}, {x}, {hi})"));
            }
            74..=85 => {
                let to = if self.rng.percent(10) {
                    T::Pred
                } else {
                    *self.rng.pick(&TYPES)
                };
                self.def(to, &format!("convert({x})"));
            }
            86..=89 if !pred => {
                let same: Vec<T> = TYPES
                    .iter()
                    .copied()
                    .filter(|u| u.bit_width() == t.bit_width())
                    .collect();
                let to = *self.rng.pick(&same);
                // A NaN's sign and payload are not specified (a loop's vector body and its
                // scalar remainder may propagate different operands'), and bits show them: every
                // NaN becomes one constant NaN first.
                let x = if float {
                    let shape = self.shape(t);
                    let (n, c, b, s) = (
                        self.name("n"),
                        self.name("c"),
                        self.name("b"),
                        self.name("v"),
                    );
                    let preds = self.shape(T::Pred);
                    self.line(&n, &preds, &format!("compare({x}, {x}), direction=NE"));
                    self.lines
                        .push(format!("  {c} = {}[] constant(nan)", ty(t)));
                    self.line(&b, &shape, &format!("broadcast({c}), dimensions={{}}"));
                    self.line(&s, &shape, &format!("select({n}, {b}, {x})"));
                    s
                } else {
                    x
                };
                self.def(to, &format!("bitcast-convert({x})"));
            }
            90..=92 if float => {
                let e = self.rng.range(1, 12);
                let m = self.rng.range(0, 30);
                self.def(
                    t,
                    &format!("reduce-precision({x}), exponent_bits={e}, mantissa_bits={m}"),
                );
            }
            93..=95 => {
                // Not element-wise: a group must not swallow it.
                self.def(t, &format!("reverse({x}), dimensions={{0}}"));
                return false;
            }
            96..=97 => {
                let to = *self.rng.pick(&TYPES);
                let d = self.rng.below(self.dims.len());
                self.def(to, &format!("iota(), iota_dimension={d}"));
                return false;
            }
            _ => {
                let to = *self.rng.pick(&TYPES);
                let b = self.splat(to);
                self.pool.push((b, to));
                return false;
            }
        }
        true
    }
}

fn fused_equals_op_by_op(seed: u64) -> Result<(), String> {
    check(seed, false)
}

fn check(seed: u64, chunk_ops: bool) -> Result<(), String> {
    let mut rng = Rng(seed);
    // Rarely a multiple of the tile: the last tile is ragged.
    let dims = if rng.percent(70) {
        vec![(MIN_ELEMENTS + rng.below(3 * TILE)) as i64]
    } else {
        let cols = 250 + rng.range(0, 40);
        vec![
            (MIN_ELEMENTS as i64 + cols - 1) / cols + rng.range(0, 40),
            cols,
        ]
    };
    let mut g = Gen {
        rng,
        dims,
        lines: vec![],
        pool: vec![],
        args: vec![],
        next: 0,
        chunk_ops,
    };
    for _ in 0..1 + g.rng.below(3) {
        let t = if g.rng.percent(10) {
            T::Pred
        } else {
            *g.rng.pick(&TYPES)
        };
        g.param(t);
    }
    let ops = 2 + g.rng.below(11);
    let mut made = 0;
    while made + 1 < ops {
        if g.op() {
            made += 1;
        }
    }
    // The last op reads a broadcast, so at least one group is worth forming.
    let (x, t) = g.pool.last().cloned().ok_or("an empty pool")?;
    let c = g.splat(t);
    let op = if t == T::Pred { "xor" } else { "add" };
    let last = g.def(t, &format!("{op}({x}, {c})"));
    let mut outs = vec![(last, t)];
    for _ in 0..g.rng.below(3) {
        if let Some(v) = g.pick(|_| true)
            && !outs.contains(&v)
        {
            outs.push(v);
        }
    }
    let names: Vec<String> = outs.iter().map(|(n, _)| n.clone()).collect();
    let text = format!(
        "HloModule fusion\n\nENTRY e {{\n{}\n  ROOT r = tuple({})\n}}\n",
        g.lines.join("\n"),
        names.join(", ")
    );
    let m = parse_and_verify(&text).map_err(|e| format!("{e}\n{text}"))?;
    if Plan::new(m.entry(), true).groups.is_empty() {
        return Err(format!("nothing fused:\n{text}"));
    }
    let fused = run(&m, g.args.clone(), &RunOptions::default())
        .map_err(|e| format!("fused: {e}\n{text}"))?;
    let off = RunOptions {
        fusion: false,
        ..RunOptions::default()
    };
    let naive = run(&m, g.args, &off).map_err(|e| format!("op by op: {e}\n{text}"))?;
    let (Literal::Tuple(a), Literal::Tuple(b)) = (&fused.result, &naive.result) else {
        return Err("the results are not tuples".into());
    };
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        let (x, y) = (array(x)?, array(y)?);
        if x.shape != y.shape {
            return Err(format!(
                "output {k}: {} fused, {} op by op\n{text}",
                x.shape, y.shape
            ));
        }
        for i in 0..x.len() {
            let (p, q) = (x.data.get(i), y.data.get(i));
            if !(p.bits_eq(&q) || (p.is_nan() && q.is_nan())) {
                return Err(format!(
                    "output {k} (`{}`), element {i}: {p:?} fused, {q:?} op by op\n{text}",
                    names[k]
                ));
            }
        }
    }
    Ok(())
}

/// A scatter whose updates are one binary op that only the scatter reads (`eval::fused::mapped`):
/// computed run by run with fusion on, in full first with it off. Random type and op, the scalar
/// on either side or a second array, windows along the operand's rows (runs of 1 to 1500
/// elements) or down its columns (strided), repeated and out-of-range indices, and a combiner
/// that adds, replaces, or takes the maximum (interpreted).
fn mapped_scatter(seed: u64) -> Result<(), String> {
    let mut rng = Rng(seed);
    let t = *rng.pick(&TYPES);
    let op = *rng.pick(&[
        "add", "subtract", "multiply", "maximum", "minimum", "divide",
    ]);
    let w = *rng.pick(&[1i64, 3, 128, 1500]);
    let b = (MIN_ELEMENTS as i64 + w - 1) / w + rng.range(0, 50);
    let rows = 1 + rng.range(0, 200);
    let down = rng.percent(30);
    let ts = ty(t);
    let mut args = vec![];
    let mut lines = vec![];
    let mut param = |rng: &mut Rng, name: &str, dims: &[i64], lines: &mut Vec<String>| {
        let n: i64 = dims.iter().product();
        let d: Vec<String> = dims.iter().map(|x| x.to_string()).collect();
        lines.push(format!(
            "  {name} = {ts}[{}] parameter({})",
            d.join(","),
            args.len()
        ));
        args.push(literal(t, dims, values(rng, t, n as usize)));
    };
    let odims = if down { [w, rows] } else { [rows, w] };
    param(&mut rng, "o", &odims, &mut lines);
    param(&mut rng, "x", &[b, w], &mut lines);
    // The second operand: an array, or a scalar's broadcast (read as the scalar).
    if rng.percent(33) {
        param(&mut rng, "y", &[b, w], &mut lines);
    } else {
        let c = constant(&mut rng, t);
        lines.push(format!("  c = {ts}[] constant({c})"));
        lines.push(format!("  y = {ts}[{b},{w}] broadcast(c), dimensions={{}}"));
    }
    let (l, r) = if rng.percent(50) {
        ("x", "y")
    } else {
        ("y", "x")
    };
    lines.push(format!("  u = {ts}[{b},{w}] {op}({l}, {r})"));
    let idx: Vec<i32> = (0..b)
        .map(|_| match rng.below(12) {
            0 => -1,
            1 => rows as i32 + rng.below(3) as i32,
            _ => rng.below(rows as usize) as i32,
        })
        .collect();
    lines.push(format!("  i = s32[{b},1] parameter({})", args.len()));
    args.push(Literal::vec(vec![b, 1], idx).map_err(|e| e.to_string())?);
    let window = if down { 1 } else { 0 };
    let comb = *rng.pick(&["add", "replace", "max"]);
    let od: Vec<String> = odims.iter().map(|x| x.to_string()).collect();
    lines.push(format!(
        "  ROOT s = {ts}[{}] scatter(o, i, u), update_window_dims={{1}}, \
         inserted_window_dims={{{window}}}, scatter_dims_to_operand_dims={{{window}}}, \
         index_vector_dim=1, to_apply={comb}",
        od.join(",")
    ));
    let text = format!(
        "HloModule mapped\n\nadd {{\n  a = {ts}[] parameter(0)\n  b = {ts}[] parameter(1)\n  \
         ROOT r = {ts}[] add(a, b)\n}}\n\nreplace {{\n  a = {ts}[] parameter(0)\n  \
         ROOT b = {ts}[] parameter(1)\n}}\n\nmax {{\n  a = {ts}[] parameter(0)\n  \
         b = {ts}[] parameter(1)\n  ROOT r = {ts}[] maximum(a, b)\n}}\n\nENTRY e {{\n{}\n}}\n",
        lines.join("\n")
    );
    let m = parse_and_verify(&text).map_err(|e| format!("{e}\n{text}"))?;
    let root = m.entry().root;
    if Plan::new(m.entry(), true).mapped_updates(root).is_none() {
        return Err(format!("the updates are not mapped:\n{text}"));
    }
    let fused =
        run(&m, args.clone(), &RunOptions::default()).map_err(|e| format!("fused: {e}\n{text}"))?;
    let off = RunOptions {
        fusion: false,
        ..RunOptions::default()
    };
    let naive = run(&m, args, &off).map_err(|e| format!("op by op: {e}\n{text}"))?;
    let (x, y) = (array(&fused.result)?, array(&naive.result)?);
    if x.shape != y.shape {
        return Err(format!("{} mapped, {} op by op\n{text}", x.shape, y.shape));
    }
    for i in 0..x.len() {
        let (p, q) = (x.data.get(i), y.data.get(i));
        if !(p.bits_eq(&q) || (p.is_nan() && q.is_nan())) {
            return Err(format!("element {i}: {p:?} mapped, {q:?} op by op\n{text}"));
        }
    }
    Ok(())
}

fn array(l: &Literal) -> Result<&Array, String> {
    l.as_array()
        .ok_or_else(|| "an output is not an array".into())
}

fn ty(t: T) -> String {
    t.to_string()
}

/// The text of a random constant of type `t`: special values often.
fn constant(rng: &mut Rng, t: T) -> String {
    if t == T::Pred {
        return rng.pick(&["true", "false"]).to_string();
    }
    if t.is_float() {
        let v = [
            "0", "-0", "inf", "-inf", "nan", "-nan", "1", "-1", "0.5", "3.25", "100", "-7.5",
            "1e-3",
        ];
        return rng.pick(&v).to_string();
    }
    let w = t.bit_width();
    let (min, max): (i128, i128) = if t.is_signed_int() {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, (1i128 << w) - 1)
    };
    let v = match rng.below(6) {
        0 => min,
        1 => max,
        2 => rng.range(0, w as i64 + 2) as i128,
        3 if t.is_signed_int() => -1,
        _ => min + (rng.next() as i128).rem_euclid(max - min + 1),
    };
    v.to_string()
}

/// One element's value, as 64 random-ish bits for integer types or an f64 for float types.
enum V {
    Bits(u64),
    F(f64),
    FBits(u64),
}

fn values(rng: &mut Rng, t: T, n: usize) -> Vec<V> {
    let w = t.bit_width();
    (0..n)
        .map(|_| {
            if t == T::Pred {
                return V::Bits(rng.next() & 1);
            }
            if t.is_float() {
                return match rng.below(10) {
                    0 => V::F(*rng.pick(&[
                        0.0,
                        -0.0,
                        f64::INFINITY,
                        f64::NEG_INFINITY,
                        f64::NAN,
                        -f64::NAN,
                        1.0,
                        -1.0,
                        0.5,
                        f64::MAX,
                        f64::MIN_POSITIVE,
                        5e-324,
                        1e-40,
                        65504.0,
                        3.4e38,
                    ])),
                    1 => V::FBits(rng.next()),
                    2 => V::F(rng.sym() * 1e6),
                    _ => V::F(rng.sym() * 4.0),
                };
            }
            let all = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            V::Bits(match rng.below(8) {
                0 => 0,
                1 => 1,
                2 => all,
                3 => 1 << (w - 1),
                4 => (1 << (w - 1)) - 1,
                5 => rng.below(w as usize + 2) as u64,
                _ => rng.next() & all,
            })
        })
        .collect()
}

/// A literal of type `t` and dimensions `dims` holding `v`.
fn literal(t: T, dims: &[i64], v: Vec<V>) -> Literal {
    let bits = |x: &V| match *x {
        V::Bits(b) | V::FBits(b) => b,
        V::F(f) => f.to_bits(),
    };
    let f = |x: &V| match *x {
        V::F(f) => f,
        V::Bits(b) => b as f64,
        V::FBits(b) => f64::from_bits(b),
    };
    let d = dims.to_vec();
    let lit = match t {
        T::Pred => Literal::vec(d, v.iter().map(|x| bits(x) & 1 == 1).collect()),
        T::S8 => Literal::vec(d, v.iter().map(|x| bits(x) as i8).collect()),
        T::S16 => Literal::vec(d, v.iter().map(|x| bits(x) as i16).collect()),
        T::S32 => Literal::vec(d, v.iter().map(|x| bits(x) as i32).collect()),
        T::S64 => Literal::vec(d, v.iter().map(|x| bits(x) as i64).collect()),
        T::U8 => Literal::vec(d, v.iter().map(|x| bits(x) as u8).collect()),
        T::U16 => Literal::vec(d, v.iter().map(|x| bits(x) as u16).collect()),
        T::U32 => Literal::vec(d, v.iter().map(|x| bits(x) as u32).collect()),
        T::U64 => Literal::vec(d, v.iter().map(bits).collect()),
        // Random bits of the narrow types are their own bits, not an f64's rounded.
        T::F16 => Literal::vec(
            d,
            v.iter()
                .map(|x| match *x {
                    V::FBits(b) => f16::from_bits(b as u16),
                    _ => f16::from_f64(f(x)),
                })
                .collect(),
        ),
        T::BF16 => Literal::vec(
            d,
            v.iter()
                .map(|x| match *x {
                    V::FBits(b) => bf16::from_bits(b as u16),
                    _ => bf16::from_f64(f(x)),
                })
                .collect(),
        ),
        T::F32 => Literal::vec(
            d,
            v.iter()
                .map(|x| match *x {
                    V::FBits(b) => f32::from_bits(b as u32),
                    _ => f(x) as f32,
                })
                .collect(),
        ),
        T::F64 => Literal::vec(d, v.iter().map(f).collect()),
        _ => unreachable!("no other type is generated"),
    };
    lit.expect("values fit their dimensions")
}
