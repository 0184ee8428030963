//! The figures of windowed ops (`reduce-window`, `select-and-scatter`, `convolution`): the
//! operand as a grid, each output position's window outlined over it, and the result beside.

use super::*;

/// Window geometry of rank ≤ 2 without dilation: (size, stride, pad_lo) per dimension.
fn window2(w: &Window, rank: usize) -> Res<Vec<(i64, i64, i64)>> {
    if w.dims
        .iter()
        .any(|d| d.lhs_dilate != 1 || d.rhs_dilate != 1)
    {
        return Err("the window figure draws windows without dilation".into());
    }
    let mut v: Vec<(i64, i64, i64)> = w
        .dims
        .iter()
        .map(|d| (d.size, d.stride, d.pad_lo))
        .collect();
    if rank > 2 || v.len() != rank {
        return Err("the window figure draws rank 1 and 2".into());
    }
    while v.len() < 2 {
        v.insert(0, (1, 1, 0));
    }
    Ok(v)
}

/// Window origins (in operand coordinates, possibly negative in the padding) of each output.
fn windows(out_dims: &[i64], w: &[(i64, i64, i64)]) -> Vec<([i64; 2], [usize; 2])> {
    let mut od = out_dims.to_vec();
    while od.len() < 2 {
        od.insert(0, 1);
    }
    all_indices(&od)
        .into_iter()
        .map(|o| {
            (
                [o[0] * w[0].1 - w[0].2, o[1] * w[1].1 - w[1].2],
                [o[0] as usize, o[1] as usize],
            )
        })
        .collect()
}

/// Draws the outline of a window clipped to a `rows`×`cols` grid.
#[allow(clippy::too_many_arguments)]
fn window_outline(
    s: &mut Svg,
    x: f64,
    y: f64,
    cw: f64,
    org: [i64; 2],
    w: &[(i64, i64, i64)],
    dims: [i64; 2],
    colour: &str,
    inset: f64,
) {
    let r0 = org[0].max(0);
    let c0 = org[1].max(0);
    let r1 = (org[0] + w[0].0 - 1).min(dims[0] - 1);
    let c1 = (org[1] + w[1].0 - 1).min(dims[1] - 1);
    if r1 >= r0 && c1 >= c0 {
        s.outline(
            x,
            y,
            cw,
            CH,
            (r0 as usize, c0 as usize),
            (r1 as usize, c1 as usize),
            colour,
            inset,
        );
    }
}

/// Each window (the first few) outlined in its colour over an operand grid drawn at (4, 22).
fn outline_windows(
    s: &mut Svg,
    wins: &[([i64; 2], [usize; 2])],
    w: &[(i64, i64, i64)],
    od: [i64; 2],
) {
    for (k, (org, _)) in wins.iter().enumerate().take(svg::PALETTE.len()) {
        window_outline(
            s,
            4.0,
            22.0,
            CW,
            *org,
            w,
            od,
            palette(k),
            1.0 + (k % 3) as f64,
        );
    }
}

/// The output cell of each window outlined in the window's colour, on a grid at (x, 22).
fn outline_outputs(s: &mut Svg, x: f64, wins: &[([i64; 2], [usize; 2])]) {
    for (k, (_, o)) in wins.iter().enumerate().take(svg::PALETTE.len()) {
        s.outline(x, 22.0, CW, CH, (o[0], o[1]), (o[0], o[1]), palette(k), 1.5);
    }
}

fn dims2(a: &Array) -> [i64; 2] {
    match a.dims() {
        [n] => [1, *n],
        [r, c] => [*r, *c],
        _ => [1, 1],
    }
}

pub(super) fn reduce_window(ex: &Evaluated) -> Res<(Svg, String)> {
    ex.expect_root(Opcode::ReduceWindow)?;
    let inst = ex.root_inst();
    if inst.operands.len() != 2 {
        return Err("the reduce-window figure draws one operand".into());
    }
    let operand = ex.operand(0)?;
    let init = ex.operand(1)?;
    let result = ex.value(ex.root)?;
    let Op::Reduction(ReductionOp::ReduceWindow(attrs)) = &inst.op else {
        return Err("the root is not a reduce-window".into());
    };
    let w = window2(&attrs.window, operand.rank())?;
    let wins = windows(result.dims(), &w);
    let od = dims2(&operand);
    let mut s = Svg::default();
    let lw = label(
        &mut s,
        4.0,
        14.0,
        &format!(
            "operand {}; init value {}",
            shape_text(&operand),
            rows(&init)?[0][0]
        ),
    );
    let (ow, oh) = s.grid(4.0, 22.0, &rows(&operand)?, CW, CH, &|_, _| DATA);
    outline_windows(&mut s, &wins, &w, od);
    let rx = 4.0 + ow.max(lw) + 30.0;
    label(&mut s, rx, 14.0, &format!("result {}", shape_text(&result)));
    let (_, rh) = s.grid(rx, 22.0, &rows(&result)?, CW, CH, &|_, _| RESULT);
    outline_outputs(&mut s, rx, &wins);
    let ws: Vec<String> = w.iter().map(|d| d.0.to_string()).collect();
    let st: Vec<String> = w.iter().map(|d| d.1.to_string()).collect();
    label(
        &mut s,
        4.0,
        22.0 + oh.max(rh) + 20.0,
        &format!(
            "window size {} stride {}: each coloured window reduces to the result cell of its colour",
            ws.join("x"),
            st.join("x")
        ),
    );
    Ok((
        s,
        "ReduceWindow: each window of the operand and the result element it produces".into(),
    ))
}

pub(super) fn select_and_scatter(ex: &Evaluated) -> Res<(Svg, String)> {
    ex.expect_root(Opcode::SelectAndScatter)?;
    let inst = ex.root_inst();
    let operand = ex.operand(0)?;
    let source = ex.operand(1)?;
    let result = ex.value(ex.root)?;
    let Op::Reduction(ReductionOp::SelectAndScatter(attrs)) = &inst.op else {
        return Err("the root is not a select-and-scatter".into());
    };
    let w = window2(&attrs.window, operand.rank())?;
    let wins = windows(source.dims(), &w);
    let od = dims2(&operand);
    // The select computation's comparison: GE/GT keep the maximum, LE/LT the minimum; a strict
    // comparison lets a later equal element take over.
    let comp = &ex.module.computations[attrs.select.0];
    let dir = match &comp.root().op {
        Op::Elementwise(ElementwiseOp::Compare(c)) => c.direction.to_string(),
        _ => "GE".to_string(),
    };
    let (want_max, strict) = match dir.as_str() {
        "GE" => (true, false),
        "GT" => (true, true),
        "LE" => (false, false),
        "LT" => (false, true),
        d => {
            return Err(format!(
                "the figure understands GE/GT/LE/LT selections, got {d}"
            ));
        }
    };
    let get = |r: i64, c: i64| -> f64 {
        let idx: Vec<i64> = if operand.rank() == 1 {
            vec![c]
        } else {
            vec![r, c]
        };
        operand.get(&idx).as_f64()
    };
    let mut selected = Vec::new();
    for (org, _) in &wins {
        let mut best: Option<(f64, i64, i64)> = None;
        for r in org[0]..org[0] + w[0].0 {
            for c in org[1]..org[1] + w[1].0 {
                if r < 0 || c < 0 || r >= od[0] || c >= od[1] {
                    continue;
                }
                let v = get(r, c);
                let take = match best {
                    None => true,
                    Some((b, _, _)) => {
                        let better = if want_max { v > b } else { v < b };
                        better || (strict && v == b)
                    }
                };
                if take {
                    best = Some((v, r, c));
                }
            }
        }
        selected.push(best.map(|(_, r, c)| (r as usize, c as usize)));
    }
    let mut s = Svg::default();
    let lw = label(
        &mut s,
        4.0,
        14.0,
        &format!("operand {} (select: {dir})", shape_text(&operand)),
    );
    let is_sel = |r: usize, c: usize| selected.contains(&Some((r, c)));
    let (ow, oh) = s.grid(4.0, 22.0, &rows(&operand)?, CW, CH, &|r, c| {
        if is_sel(r, c) { HOLE } else { DATA }
    });
    outline_windows(&mut s, &wins, &w, od);
    let sx = 4.0 + ow.max(lw) + 30.0;
    label(&mut s, sx, 14.0, &format!("source {}", shape_text(&source)));
    let (sw, sh) = s.grid(sx, 22.0, &rows(&source)?, CW, CH, &|_, _| DATA);
    outline_outputs(&mut s, sx, &wins);
    let y = 22.0 + oh.max(sh) + 34.0;
    label(
        &mut s,
        4.0,
        y - 8.0,
        &format!(
            "result {}: each source value is scattered onto its window's selected element",
            shape_text(&result)
        ),
    );
    let (_, rh) = s.grid(4.0, y, &rows(&result)?, CW, CH, &|r, c| {
        if is_sel(r, c) { RESULT } else { PLAIN }
    });
    let _ = sw;
    s.legend(
        4.0,
        y + rh + 10.0,
        &[
            (HOLE, "selected in a window"),
            (RESULT, "receives source values"),
        ],
    );
    Ok((
        s,
        "SelectAndScatter: windows, the element each selects, and where the source values go"
            .into(),
    ))
}

pub(super) fn convolution(ex: &Evaluated) -> Res<(Svg, String)> {
    ex.expect_root(Opcode::Convolution)?;
    let inst = ex.root_inst();
    let input = squeezed(&ex.operand(0)?)?;
    let kernel = squeezed(&ex.operand(1)?)?;
    let result = squeezed(&ex.value(ex.root)?)?;
    let Op::Linalg(LinalgOp::Convolution(attrs)) = &inst.op else {
        return Err("the root is not a convolution".into());
    };
    let w = attrs.window.clone().unwrap_or_default();
    if w.dims.len() != 1 || input.rank() != 1 || kernel.rank() > 1 || result.rank() > 1 {
        return Err(
            "the convolution figure draws one spatial dimension with one batch and one feature"
                .into(),
        );
    }
    let d = &w.dims[0];
    let n = input.dims()[0];
    let dil_len = if n == 0 {
        0
    } else {
        (n - 1) * d.lhs_dilate + 1
    };
    let total = (d.pad_lo + dil_len + d.pad_hi).max(0);
    let zero = "0".to_string();
    let mut cells = Vec::new();
    let mut fills = Vec::new();
    for p in 0..total {
        let q = p - d.pad_lo;
        if q < 0 || q >= dil_len {
            cells.push(zero.clone());
            fills.push(PAD);
        } else if q % d.lhs_dilate != 0 {
            cells.push(zero.clone());
            fills.push(HOLE);
        } else {
            cells.push(scalar_text(input.data.get((q / d.lhs_dilate) as usize)));
            fills.push(DATA);
        }
    }
    let kvals: Vec<String> = rows(&kernel)?.concat();
    let outs: Vec<String> = rows(&result)?.concat();
    let mut s = Svg::default();
    label(
        &mut s,
        4.0,
        14.0,
        &format!(
            "input {} after padding {}_{} and lhs dilation {}; kernel {{{}}}, stride {}, rhs dilation {}{}",
            shape_text(&input),
            d.pad_lo,
            d.pad_hi,
            d.lhs_dilate,
            kvals.join(", "),
            d.stride,
            d.rhs_dilate,
            if d.reversal { ", reversed" } else { "" }
        ),
    );
    let x0 = 4.0;
    let (_, gh) = s.grid(x0, 22.0, &[cells], CW, CH, &|_, c| {
        fills.get(c).copied().unwrap_or(PLAIN)
    });
    let mut y = 22.0 + gh + 8.0;
    for (o, out) in outs.iter().enumerate() {
        let start = o as i64 * d.stride;
        let colour = palette(o);
        for k in 0..d.size {
            let p = start + k * d.rhs_dilate;
            let kk = if d.reversal { d.size - 1 - k } else { k };
            let kv = kvals.get(kk as usize).cloned().unwrap_or_default();
            let cx = x0 + p as f64 * CW;
            s.rect(cx + 2.0, y, CW - 4.0, CH - 4.0, PLAIN, colour, 1.5);
            s.text(
                cx + CW / 2.0,
                y + CH / 2.0 + 2.0,
                &format!("×{kv}"),
                10.0,
                "middle",
            );
        }
        s.text(
            x0 + total.max(1) as f64 * CW + 12.0,
            y + CH / 2.0 + 2.0,
            &format!("→ output[{o}] = {out}"),
            11.0,
            "start",
        );
        y += CH;
    }
    s.legend(
        4.0,
        y + 8.0,
        &[
            (DATA, "input element"),
            (PAD, "padding"),
            (HOLE, "lhs-dilation hole"),
        ],
    );
    Ok((
        s,
        "Convolution: the window taps of each output position over the padded, dilated input"
            .into(),
    ))
}
