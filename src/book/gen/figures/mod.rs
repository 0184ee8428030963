//! Figures drawn from a page's own examples.
//!
//! A fence ```` ```figure <kind> ```` holds `key: value` lines: `example:` names a runnable
//! example of the same page (for `layout`, one or more `layout-test` names separated by commas),
//! and `caption:` is optional. The example is parsed, verified and evaluated by the reference
//! runtime, and the figure is drawn from its attributes and values, so a figure cannot disagree
//! with the example beside it. Kinds: `pad`, `gather`, `reduce-window`, `select-and-scatter`,
//! `convolution` (one spatial dimension) and `layout`. A fence that cannot be drawn is an error
//! naming the page and line.

use super::svg::{self, DATA, HOLE, PAD, PLAIN, RESULT, Svg, palette};
use crate::conformance::{Case, CaseBody, LayoutCase};
use crate::hlo::ast::{InstId, Module};
use crate::hlo::opcode::{
    ElementwiseOp, IndexingOp, LinalgOp, MovementOp, Op, Opcode, ReductionOp,
};
use crate::literal::{Array, Literal, text::scalar_text};
use crate::shape::window::Window;
use std::path::Path;

type Res<T> = std::result::Result<T, String>;

mod window;
use window::{convolution, reduce_window, select_and_scatter};

/// Replaces every figure fence of a page by its SVG (inside a `<figure>` with a caption).
pub fn expand_figures(page_path: &str, markdown: &str) -> crate::Result<String> {
    let mut out = String::with_capacity(markdown.len());
    let lines: Vec<&str> = markdown.split_inclusive('\n').collect();
    let mut cases: Option<Vec<Case>> = None;
    let mut open: Option<(char, usize)> = None;
    let mut i = 0;
    while i < lines.len() {
        let raw = lines[i];
        let t = raw.trim();
        let fence = crate::book::fence_run(t);
        match (open, fence) {
            (Some((c, n)), Some((fc, fnn)))
                if fc == c && fnn >= n && t[fnn..].trim().is_empty() =>
            {
                open = None;
                out.push_str(raw);
            }
            (Some(_), _) => out.push_str(raw),
            (None, Some((c, n))) => {
                let mut words = t[n..].split_whitespace();
                if words.next() == Some("figure") {
                    let kind = words.next().unwrap_or("").to_string();
                    let start = i;
                    let mut body = Vec::new();
                    i += 1;
                    let mut closed = false;
                    while i < lines.len() {
                        let l = lines[i].trim();
                        if l.starts_with(&c.to_string().repeat(n))
                            && l.trim_start_matches(c).trim().is_empty()
                        {
                            closed = true;
                            break;
                        }
                        body.push(l.to_string());
                        i += 1;
                    }
                    let err = |m: String| {
                        crate::Error::runtime(format!("{page_path}:{}: figure: {m}", start + 1))
                    };
                    if !closed {
                        return Err(err("the fence is never closed".into()));
                    }
                    let cases = cases.get_or_insert_with(|| {
                        crate::conformance::book::load_text(
                            "book::page",
                            Path::new(page_path),
                            markdown,
                        )
                    });
                    let html = figure(&kind, &body, cases).map_err(err)?;
                    out.push_str(&html);
                    out.push('\n');
                } else {
                    open = Some((c, n));
                    out.push_str(raw);
                }
            }
            (None, None) => out.push_str(raw),
        }
        i += 1;
    }
    Ok(out)
}

fn figure(kind: &str, body: &[String], cases: &[Case]) -> Res<String> {
    let mut example = None;
    let mut caption = None;
    for l in body.iter().filter(|l| !l.is_empty()) {
        match l.split_once(':') {
            Some(("example", v)) => example = Some(v.trim().to_string()),
            Some(("caption", v)) => caption = Some(v.trim().to_string()),
            _ => return Err(format!("expected `example:` or `caption:`, found {l:?}")),
        }
    }
    let example = example.ok_or("a figure needs `example: <name>` (an example on this page)")?;
    let find = |name: &str| -> Res<&Case> {
        cases
            .iter()
            .find(|c| c.name.rsplit("::").next() == Some(name))
            .ok_or_else(|| format!("no example `{name}` on this page"))
    };
    let (svg, title) = if kind == "layout" {
        let mut lcs = Vec::new();
        for n in example.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match &find(n)?.body {
                CaseBody::Layout(lc) => lcs.push((n.to_string(), lc)),
                _ => return Err(format!("`{n}` is not a layout-test example")),
            }
        }
        layout(&lcs)?
    } else {
        let case = find(&example)?;
        let ex = Evaluated::new(case)?;
        match kind {
            "pad" => pad(&ex)?,
            "gather" => gather(&ex)?,
            "reduce-window" => reduce_window(&ex)?,
            "select-and-scatter" => select_and_scatter(&ex)?,
            "convolution" => convolution(&ex)?,
            _ => {
                return Err(format!(
                    "unknown figure kind `{kind}` (pad, gather, reduce-window, select-and-scatter, convolution, layout)"
                ));
            }
        }
    };
    let caption =
        caption.unwrap_or_else(|| format!("{title} (drawn from the example `{example}`)"));
    Ok(format!(
        "<figure class=\"xla-figure\">{}<figcaption>{}</figcaption></figure>",
        svg.finish(&title),
        svg::esc(&caption)
    ))
}

/// An example's module, arguments and the instruction the figure is about.
struct Evaluated {
    module: Module,
    args: Vec<Literal>,
    /// The ENTRY root.
    root: InstId,
}

impl Evaluated {
    fn new(case: &Case) -> Res<Evaluated> {
        let CaseBody::Run(rc) = &case.body else {
            return Err(format!(
                "`{}` is not a runnable hlo-test example",
                case.name
            ));
        };
        let module = crate::verify::parse_and_verify(&rc.hlo).map_err(|e| e.to_string())?;
        let root = module.entry().root;
        Ok(Evaluated {
            args: rc.args.first().cloned().unwrap_or_default(),
            module,
            root,
        })
    }

    fn root_inst(&self) -> &crate::hlo::ast::Instruction {
        &self.module.entry().instructions[self.root]
    }

    /// The value of one ENTRY instruction, computed by running the module with it as root.
    fn value(&self, id: InstId) -> Res<Array> {
        let mut m = self.module.clone();
        let entry = m.entry;
        m.computations[entry].root = id;
        let out = crate::eval::run(&m, self.args.clone(), &crate::eval::RunOptions::default())
            .map_err(|e| e.to_string())?;
        out.result.into_array().map_err(|e| e.to_string())
    }

    fn operand(&self, k: usize) -> Res<Array> {
        let id = *self
            .root_inst()
            .operands
            .get(k)
            .ok_or_else(|| format!("the root has no operand {k}"))?;
        self.value(id)
    }

    fn expect_root(&self, op: Opcode) -> Res<()> {
        let got = self.root_inst().opcode();
        if got == op {
            Ok(())
        } else {
            Err(format!(
                "the example's ROOT is `{got}`, the figure needs `{op}`"
            ))
        }
    }
}

/// An array of rank 0..=2 as rows of text (rank 1 is one row).
fn rows(a: &Array) -> Res<Vec<Vec<String>>> {
    let dims = a.dims();
    let (r, c) = match dims.len() {
        0 => (1, 1),
        1 => (1, dims[0] as usize),
        2 => (dims[0] as usize, dims[1] as usize),
        n => {
            return Err(format!(
                "the figure draws arrays of rank up to 2, got rank {n}"
            ));
        }
    };
    Ok((0..r)
        .map(|i| (0..c).map(|j| scalar_text(a.data.get(i * c + j))).collect())
        .collect())
}

/// Drops dimensions of size 1 (a `[1,1,5]` convolution input draws as a row of 5).
fn squeezed(a: &Array) -> Res<Array> {
    let dims: Vec<i64> = a.dims().iter().copied().filter(|d| *d != 1).collect();
    let mut shape = a.shape.clone();
    shape.dims = dims.clone();
    shape.dynamic = vec![false; dims.len()];
    shape.layout = None;
    Array::from_data(shape, a.data.clone()).map_err(|e| e.to_string())
}

const CW: f64 = 34.0;
const CH: f64 = 22.0;

/// Writes a 12px label and returns its approximate width.
fn label(s: &mut Svg, x: f64, y: f64, t: &str) -> f64 {
    s.text(x, y, t, 12.0, "start");
    t.chars().count() as f64 * 12.0 * 0.62
}

fn pad(ex: &Evaluated) -> Res<(Svg, String)> {
    ex.expect_root(Opcode::Pad)?;
    let inst = ex.root_inst();
    let operand = ex.operand(0)?;
    let value = ex.operand(1)?;
    let result = ex.value(ex.root)?;
    let Op::Movement(MovementOp::Pad(attrs)) = &inst.op else {
        return Err("the root is not a pad".into());
    };
    let mut cfg = attrs.padding.clone();
    if operand.rank() > 2 {
        return Err("the pad figure draws rank 1 and 2".into());
    }
    while cfg.len() < 2 {
        cfg.insert(
            0,
            crate::hlo::ast::PadDim {
                lo: 0,
                hi: 0,
                interior: 0,
            },
        );
    }
    let mut odims = operand.dims().to_vec();
    while odims.len() < 2 {
        odims.insert(0, 1);
    }
    // Where operand index j of dimension d lands in the result, if it survives cropping.
    let rdims: Vec<i64> = (0..2)
        .map(|d| {
            let n = odims[d];
            let p = &cfg[d];
            (p.lo + p.hi + n + (n - 1).max(0) * p.interior).max(0)
        })
        .collect();
    #[derive(PartialEq, Clone, Copy)]
    enum Class {
        Data,
        Edge,
        Interior,
    }
    let class = |d: usize, i: i64| {
        let p = &cfg[d];
        let pos = i - p.lo;
        let last = (odims[d] - 1) * (p.interior + 1);
        if odims[d] == 0 || pos < 0 || pos > last {
            Class::Edge
        } else if pos % (p.interior + 1) != 0 {
            Class::Interior
        } else {
            Class::Data
        }
    };
    let kept = |d: usize, j: i64| {
        let at = cfg[d].lo + j * (cfg[d].interior + 1);
        (0..rdims[d]).contains(&at)
    };
    let mut s = Svg::default();
    let ocells = rows(&operand)?;
    let lw = label(
        &mut s,
        4.0,
        14.0,
        &format!("operand {}", shape_text(&operand)),
    );
    let (ow, oh) = s.grid(4.0, 22.0, &ocells, CW, CH, &|r, c| {
        let (r, c) = if operand.rank() < 2 {
            (0, r.max(c))
        } else {
            (r, c)
        };
        if kept(0, r as i64) && kept(1, c as i64) {
            DATA
        } else {
            "#fecaca"
        }
    });
    let vx = 4.0 + ow.max(lw) + 30.0;
    label(&mut s, vx, 14.0, "padding value");
    s.grid(vx, 22.0, &rows(&value)?, CW, CH, &|_, _| PAD);
    let y = 22.0 + oh + 34.0;
    let cfg_text: Vec<String> = attrs
        .padding
        .iter()
        .map(|p| format!("{}_{}_{}", p.lo, p.hi, p.interior))
        .collect();
    label(
        &mut s,
        4.0,
        y - 8.0,
        &format!(
            "result {}   padding={}",
            shape_text(&result),
            cfg_text.join("x")
        ),
    );
    let rcells = rows(&result)?;
    let one_d = result.rank() < 2;
    let (_, rh) = s.grid(4.0, y, &rcells, CW, CH, &|r, c| {
        let (r, c) = if one_d { (0, c) } else { (r, c) };
        let (a, b) = (class(0, r as i64), class(1, c as i64));
        if a == Class::Edge || b == Class::Edge {
            PAD
        } else if a == Class::Interior || b == Class::Interior {
            HOLE
        } else {
            DATA
        }
    });
    s.legend(
        4.0,
        y + rh + 10.0,
        &[
            (DATA, "operand element"),
            (PAD, "edge padding"),
            (HOLE, "interior padding"),
            ("#fecaca", "cropped"),
        ],
    );
    Ok((
        s,
        "Pad: where each operand element lands, and the padding around and between".into(),
    ))
}

fn shape_text(a: &Array) -> String {
    let dims: Vec<String> = a.dims().iter().map(i64::to_string).collect();
    format!("{}[{}]", a.ty().name(), dims.join(","))
}

/// Every index of `dims` in row-major order.
fn all_indices(dims: &[i64]) -> Vec<Vec<i64>> {
    let n: i64 = dims.iter().product();
    (0..n.max(0))
        .map(|mut lin| {
            let mut idx = vec![0; dims.len()];
            for d in (0..dims.len()).rev() {
                idx[d] = lin % dims[d];
                lin /= dims[d];
            }
            idx
        })
        .collect()
}

fn gather(ex: &Evaluated) -> Res<(Svg, String)> {
    ex.expect_root(Opcode::Gather)?;
    let inst = ex.root_inst();
    let operand = ex.operand(0)?;
    let indices = ex.operand(1)?;
    if operand.rank() != 2 {
        return Err("the gather figure draws a rank-2 operand".into());
    }
    let Op::Indexing(IndexingOp::Gather(attrs)) = &inst.op else {
        return Err("the root is not a gather".into());
    };
    let map = &attrs.start_index_map;
    let sizes = &attrs.slice_sizes;
    let ivd = attrs.index_vector_dim as usize;
    let idims = indices.dims().to_vec();
    // Batch positions: every index of the non-vector dimensions; the vector runs along `ivd`.
    let batch_dims: Vec<i64> = idims
        .iter()
        .enumerate()
        .filter(|(d, _)| *d != ivd)
        .map(|(_, n)| *n)
        .collect();
    let vlen = if ivd < idims.len() { idims[ivd] } else { 1 };
    let mut starts = Vec::new();
    for b in all_indices(&batch_dims) {
        let mut v = Vec::new();
        for k in 0..vlen {
            let mut full = b.clone();
            if ivd <= full.len() && ivd < idims.len() {
                full.insert(ivd, k);
            }
            let x = ex_i64(&indices, &full)?;
            v.push(x);
        }
        let mut start = [0i64; 2];
        for (k, &d) in map.iter().enumerate() {
            let d = d as usize;
            if d < 2 {
                let hi = operand.dims()[d] - sizes[d];
                start[d] = v.get(k).copied().unwrap_or(0).clamp(0, hi.max(0));
            }
        }
        starts.push((v, start));
    }
    let mut s = Svg::default();
    let cells = rows(&operand)?;
    let cw = if cells.iter().flatten().any(|v| v.len() > 4) {
        44.0
    } else {
        CW
    };
    label(
        &mut s,
        4.0,
        14.0,
        &format!(
            "operand {}, slice_sizes={{{}}}",
            shape_text(&operand),
            sizes
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(",")
        ),
    );
    let inside = |r: usize, c: usize| {
        starts.iter().any(|(_, st)| {
            (st[0]..st[0] + sizes[0]).contains(&(r as i64))
                && (st[1]..st[1] + sizes[1]).contains(&(c as i64))
        })
    };
    let (_, gh) = s.grid(4.0, 22.0, &cells, cw, CH, &|r, c| {
        if inside(r, c) { DATA } else { PLAIN }
    });
    for (k, (_, st)) in starts.iter().enumerate().take(svg::PALETTE.len()) {
        let end = (
            (st[0] + sizes[0] - 1).max(st[0]) as usize,
            (st[1] + sizes[1] - 1).max(st[1]) as usize,
        );
        s.outline(
            4.0,
            22.0,
            cw,
            CH,
            (st[0] as usize, st[1] as usize),
            end,
            palette(k),
            1.0 + (k % 3) as f64,
        );
    }
    let mut y = 22.0 + gh + 22.0;
    label(
        &mut s,
        4.0,
        y,
        "index vector → slice start (clamped so the slice fits)",
    );
    for (k, (v, st)) in starts.iter().enumerate().take(svg::PALETTE.len()) {
        y += 18.0;
        s.rect(4.0, y - 10.0, 12.0, 12.0, "none", palette(k), 2.0);
        let vs: Vec<String> = v.iter().map(i64::to_string).collect();
        let clamped = if v.len() == 2 && v[..] != st[..] {
            "  (clamped)"
        } else {
            ""
        };
        label(
            &mut s,
            22.0,
            y,
            &format!(
                "batch {k}: ({}) → start ({}, {}){clamped}",
                vs.join(", "),
                st[0],
                st[1]
            ),
        );
    }
    Ok((
        s,
        "Gather: the slice each index vector selects from the operand".into(),
    ))
}

fn ex_i64(a: &Array, idx: &[i64]) -> Res<i64> {
    if idx.len() != a.rank() || idx.iter().zip(a.dims()).any(|(i, d)| *i < 0 || i >= d) {
        return Err("index out of range while drawing".into());
    }
    a.get(idx)
        .as_i128()
        .and_then(|x| i64::try_from(x).ok())
        .ok_or_else(|| "indices must be integers".to_string())
}

const TINTS: &[&str] = &[
    "#dbeafe", "#fce7f3", "#dcfce7", "#fef3c7", "#ede9fe", "#cffafe",
];

fn layout(cases: &[(String, &LayoutCase)]) -> Res<(Svg, String)> {
    let mut s = Svg::default();
    let mut y = 0.0;
    for (name, lc) in cases {
        let dims = lc.shape.dims.clone();
        if dims.len() > 2 {
            return Err(format!("`{name}`: the layout figure draws rank 1 and 2"));
        }
        let mut l = lc
            .shape
            .layout
            .clone()
            .unwrap_or_else(|| crate::shape::Layout {
                minor_to_major: (0..dims.len() as i64).rev().collect(),
                padded_dimensions: None,
                padding_value: Default::default(),
                physical: None,
            });
        if let Some(p) = &lc.padded {
            l.padded_dimensions = Some(p.clone());
        }
        l.check(&dims).map_err(|e| format!("`{name}`: {e}"))?;
        let len = l.buffer_len(&dims).max(0) as usize;
        if len > 64 {
            return Err(format!(
                "`{name}`: the buffer has {len} positions, too many to draw"
            ));
        }
        let (r, c) = match dims[..] {
            [] => (1, 1),
            [n] => (1, n as usize),
            [a, b] => (a as usize, b as usize),
            _ => unreachable!(),
        };
        let pad = scalar_text(crate::literal::padding_scalar(
            lc.shape.ty,
            lc.padding_value,
        ));
        let mut buffer: Vec<(String, Option<usize>)> = vec![(pad, None); len];
        let mut logical = vec![vec![String::new(); c]; r];
        for (i, row) in logical.iter_mut().enumerate() {
            for (j, cell) in row.iter_mut().enumerate() {
                let sym = lc.values.get(i * c + j).cloned().unwrap_or_default();
                let idx: Vec<i64> = match dims.len() {
                    0 => vec![],
                    1 => vec![j as i64],
                    _ => vec![i as i64, j as i64],
                };
                let at = l
                    .checked_linear_index(&dims, &idx)
                    .map_err(|e| e.to_string())? as usize;
                if let Some(b) = buffer.get_mut(at) {
                    *b = (sym.clone(), Some(i));
                }
                *cell = sym;
            }
        }
        let m2m: Vec<String> = l.minor_to_major.iter().map(i64::to_string).collect();
        let padded = match &l.padded_dimensions {
            Some(p) => format!(", padded to {:?}", p),
            None => String::new(),
        };
        label(
            &mut s,
            4.0,
            y + 14.0,
            &format!(
                "{name}: {}[{}]{{{}}}{padded}",
                lc.shape.ty.name(),
                dims.iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(","),
                m2m.join(",")
            ),
        );
        y += 18.0;
        let lw = label(&mut s, 4.0, y + 14.0, "logical array");
        let (gw, gh) = s.grid(4.0, y + 22.0, &logical, CW, CH, &|i, _| {
            TINTS[i % TINTS.len()]
        });
        let bx = 4.0 + gw.max(lw) + 30.0;
        label(&mut s, bx, y + 14.0, "linear buffer, position 0 first");
        let cells = vec![buffer.iter().map(|b| b.0.clone()).collect::<Vec<_>>()];
        let rows_of: Vec<Option<usize>> = buffer.iter().map(|b| b.1).collect();
        s.grid(
            bx,
            y + 22.0,
            &cells,
            CW * 0.8,
            CH,
            &|_, k| match rows_of.get(k).copied().flatten() {
                Some(i) => TINTS[i % TINTS.len()],
                None => PAD,
            },
        );
        for k in 0..len {
            s.text(
                bx + k as f64 * CW * 0.8 + CW * 0.4,
                y + 22.0 + CH + 12.0,
                &k.to_string(),
                9.0,
                "middle",
            );
        }
        y += 22.0 + gh.max(CH + 14.0) + 18.0;
    }
    s.legend(
        4.0,
        y,
        &[(TINTS[0], "row 0"), (TINTS[1], "row 1"), (PAD, "padding")],
    );
    Ok((
        s,
        "Layouts: the logical array and where each element sits in the linear buffer".into(),
    ))
}
