//! The `__onednn$...` custom-call targets that XLA:CPU's oneDNN rewriter writes into optimised
//! modules (`__onednn$matmul`, `__onednn$layernorm`, `__onednn$softmax`,
//! `__onednn$convolution`), read with their `backend_config`.
//!
//! Each is defined by what it replaces in the unoptimised module: a `dot` (or a convolution)
//! followed by the element-wise post-operations listed in `fusions.ops`, a layer normalisation,
//! a softmax. The backend_config fields are the ones jaxlib 0.10.2's XLA:CPU reads (its
//! `xla.cpu.BackendConfig` JSON, where 64-bit integers may be written as strings); other XLA
//! versions have used other names and encodings, and a config this module does not understand is
//! a `custom-call.target_contract` error rather than a guess. Values are computed in f64 and
//! rounded once to the result type, as a reference; oneDNN accumulates in f32, so results
//! compare with a tolerance.

use super::custom_call::{CustomCallBuffer, contract, row_major as indices};
use crate::error::Result;
use crate::literal::Scalar;
use crate::types::ElementType;
use serde_json::Value;

fn config(target: &str, text: &str, key: &str) -> Result<Value> {
    let text = text.trim();
    // Older dumps write the config as a quoted string holding the JSON.
    let unquoted;
    let text = if text.starts_with('"') {
        unquoted = serde_json::from_str::<String>(text)
            .map_err(|e| contract(target, format!("backend_config is not a JSON string: {e}")))?;
        unquoted.as_str()
    } else {
        text
    };
    if text.is_empty() {
        return Ok(Value::Null);
    }
    let v: Value = serde_json::from_str(text)
        .map_err(|e| contract(target, format!("backend_config is not JSON: {e}")))?;
    Ok(v.get(key).cloned().unwrap_or(Value::Null))
}

/// A protobuf-JSON integer: a number or a decimal string.
fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

fn int_field(target: &str, v: &Value, key: &str, default: i64) -> Result<i64> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(x) => int(x).ok_or_else(|| contract(target, format!("`{key}` is not an integer"))),
    }
}

fn int_list(target: &str, v: &Value, key: &str) -> Result<Vec<i64>> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(vec![]),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| int(x).ok_or_else(|| contract(target, format!("`{key}` holds a non-integer"))))
            .collect(),
        Some(_) => Err(contract(target, format!("`{key}` is not a list"))),
    }
}

fn bool_field(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn is_float(ty: ElementType) -> bool {
    matches!(
        ty,
        ElementType::F16 | ElementType::BF16 | ElementType::F32 | ElementType::F64
    )
}

fn read(b: &CustomCallBuffer, idx: &[i64]) -> f64 {
    b.data.get(b.offset(idx)).as_f64()
}

fn write(b: &mut CustomCallBuffer, idx: &[i64], x: f64) -> Result<()> {
    let ty = b.shape.ty;
    let at = b.offset(idx);
    b.data.set(at, Scalar::from_f64(ty, x))
}

/// An operand broadcast onto the result: same rank, each dimension 1 or the result's.
fn broadcast_read(b: &CustomCallBuffer, idx: &[i64]) -> f64 {
    let i: Vec<i64> = idx
        .iter()
        .zip(&b.shape.dims)
        .map(|(&i, &d)| if d == 1 { 0 } else { i })
        .collect();
    read(b, &i)
}

fn broadcastable(b: &CustomCallBuffer, out: &[i64]) -> bool {
    b.shape.dims.len() == out.len()
        && b.shape
            .dims
            .iter()
            .zip(out)
            .all(|(&d, &o)| d == 1 || d == o)
        && is_float(b.shape.ty)
}

/// The element-wise post-operations oneDNN applies after a matmul or convolution, in order;
/// `BIAS` and `BINARY_ADD` each take the next extra operand.
enum PostOp {
    Add(usize),
    Relu,
    Relu6,
    Tanh,
    GeluErf,
    GeluTanh,
    Linear(f64),
    Elu,
    Sigmoid,
    Swish,
}

fn post_ops(
    target: &str,
    cfg: &Value,
    extra: &[CustomCallBuffer],
    out: &[i64],
) -> Result<Vec<PostOp>> {
    let fusions = cfg.get("fusions").cloned().unwrap_or(Value::Null);
    let names: Vec<String> = match fusions.get("ops") {
        None | Some(Value::Null) => vec![],
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| match x {
                Value::String(s) => Ok(s.clone()),
                _ => Err(contract(
                    target,
                    "`fusions.ops` lists names such as \"BIAS\"",
                )),
            })
            .collect::<Result<_>>()?,
        Some(_) => return Err(contract(target, "`fusions.ops` is not a list")),
    };
    // jaxlib 0.10.2 writes `alpha` as a float; versions that wrote `alpha_typecast` stored the
    // float's bits in an int32.
    let alpha = match (fusions.get("alpha"), fusions.get("alpha_typecast")) {
        (Some(a), _) if a.as_f64().is_some() => a.as_f64().unwrap_or(1.0),
        (_, Some(t)) => int(t)
            .map(|b| f32::from_bits(b as u32) as f64)
            .ok_or_else(|| contract(target, "`alpha_typecast` is not an integer"))?,
        _ => 1.0,
    };
    let mut next = 0;
    let mut ops = vec![];
    for name in names {
        ops.push(match name.as_str() {
            "BIAS" | "BINARY_ADD" => {
                let Some(b) = extra.get(next) else {
                    return Err(contract(
                        target,
                        format!("post-op {name} needs an operand, and none is left"),
                    ));
                };
                if !broadcastable(b, out) {
                    return Err(contract(
                        target,
                        format!(
                            "the {name} operand {} must have the result's rank, each dimension 1 or the result's {:?}, and a float type",
                            b.shape, out
                        ),
                    ));
                }
                next += 1;
                PostOp::Add(next - 1)
            }
            "RELU" => PostOp::Relu,
            "RELU6" => PostOp::Relu6,
            "TANH" => PostOp::Tanh,
            "GELU_ERF" => PostOp::GeluErf,
            "GELU_TANH" => PostOp::GeluTanh,
            "LINEAR" => PostOp::Linear(alpha),
            "ELU" => PostOp::Elu,
            "SIGMOID" => PostOp::Sigmoid,
            "SWISH" => PostOp::Swish,
            other => {
                return Err(contract(
                    target,
                    format!("post-op `{other}` is not one the reference knows (see the custom-call targets page)"),
                ));
            }
        });
    }
    if next != extra.len() {
        return Err(contract(
            target,
            format!(
                "{} operand(s) beyond the first two, but the post-ops use {next}",
                extra.len()
            ),
        ));
    }
    Ok(ops)
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn apply(ops: &[PostOp], extra: &[CustomCallBuffer], idx: &[i64], mut x: f64) -> f64 {
    for op in ops {
        x = match *op {
            PostOp::Add(k) => x + broadcast_read(&extra[k], idx),
            PostOp::Relu => {
                if x > 0.0 {
                    x
                } else {
                    0.0
                }
            }
            PostOp::Relu6 => x.clamp(0.0, 6.0),
            PostOp::Tanh => x.tanh(),
            PostOp::GeluErf => 0.5 * x * (1.0 + libm_erf(x / std::f64::consts::SQRT_2)),
            PostOp::GeluTanh => {
                let c = (2.0 / std::f64::consts::PI).sqrt();
                0.5 * x * (1.0 + (c * (x + 0.044715 * x * x * x)).tanh())
            }
            PostOp::Linear(a) => a * x,
            PostOp::Elu => {
                if x > 0.0 {
                    x
                } else {
                    x.exp_m1()
                }
            }
            PostOp::Sigmoid => sigmoid(x),
            PostOp::Swish => x * sigmoid(x),
        };
    }
    x
}

fn libm_erf(x: f64) -> f64 {
    crate::eval::elementwise::math::erf(x)
}

/// `__onednn$matmul(a, b, extra...)`: `a [..., M, K]` (`[..., K, M]` with `transpose_a`) times
/// `b [..., K, N]` (`[..., N, K]` with `transpose_b`), batch dimensions equal or 1 on one side,
/// then the post-ops.
pub(super) fn matmul(
    out: &mut [CustomCallBuffer],
    ins: &[CustomCallBuffer],
    text: &str,
) -> Result<()> {
    const T: &str = "__onednn$matmul";
    let cfg = config(T, text, "onednn_matmul_config")?;
    let ([y], [a, b, extra @ ..]) = (out, ins) else {
        return Err(contract(
            T,
            "takes two or more float arrays and returns one array",
        ));
    };
    let (ta, tb) = (
        bool_field(&cfg, "transpose_a"),
        bool_field(&cfg, "transpose_b"),
    );
    let (ad, bd, yd) = (
        a.shape.dims.clone(),
        b.shape.dims.clone(),
        y.shape.dims.clone(),
    );
    let r = yd.len();
    if r < 2
        || ad.len() != r
        || bd.len() != r
        || ![a.shape.ty, b.shape.ty, y.shape.ty]
            .into_iter()
            .all(is_float)
    {
        return Err(contract(
            T,
            format!(
                "operands and result are float arrays of one rank >= 2, got {}, {} -> {}",
                a.shape, b.shape, y.shape
            ),
        ));
    }
    let (m, k) = if ta {
        (ad[r - 1], ad[r - 2])
    } else {
        (ad[r - 2], ad[r - 1])
    };
    let (k2, n) = if tb {
        (bd[r - 1], bd[r - 2])
    } else {
        (bd[r - 2], bd[r - 1])
    };
    let batch_ok =
        (0..r - 2).all(|d| (ad[d] == yd[d] || ad[d] == 1) && (bd[d] == yd[d] || bd[d] == 1));
    if k != k2 || yd[r - 2] != m || yd[r - 1] != n || !batch_ok {
        return Err(contract(
            T,
            format!(
                "{} x {} (transpose_a={ta}, transpose_b={tb}) does not give {}",
                a.shape, b.shape, y.shape
            ),
        ));
    }
    let ops = post_ops(T, &cfg, extra, &yd)?;
    for idx in indices(&yd) {
        let (i, j) = (idx[r - 2], idx[r - 1]);
        let mut ai: Vec<i64> = (0..r - 2)
            .map(|d| if ad[d] == 1 { 0 } else { idx[d] })
            .collect();
        let mut bi: Vec<i64> = (0..r - 2)
            .map(|d| if bd[d] == 1 { 0 } else { idx[d] })
            .collect();
        ai.extend([0, 0]);
        bi.extend([0, 0]);
        let mut s = 0.0;
        for p in 0..k {
            (ai[r - 2], ai[r - 1]) = if ta { (p, i) } else { (i, p) };
            (bi[r - 2], bi[r - 1]) = if tb { (j, p) } else { (p, j) };
            s += read(a, &ai) * read(b, &bi);
        }
        let v = apply(&ops, extra, &idx, s);
        write(y, &idx, v)?;
    }
    Ok(())
}

/// `__onednn$layernorm(x, [scale], [shift])`: each row along the last dimension is normalised to
/// mean 0 and variance 1 (`(x - mean) / sqrt(var + epsilon)`, the variance without Bessel's
/// correction), then multiplied by `scale` and shifted by `shift`, both `[last dimension]`, as
/// `rescale` says.
pub(super) fn layernorm(
    out: &mut [CustomCallBuffer],
    ins: &[CustomCallBuffer],
    text: &str,
) -> Result<()> {
    const T: &str = "__onednn$layernorm";
    let cfg = config(T, text, "onednn_layer_norm_config")?;
    let rescale = match cfg.get("rescale") {
        None | Some(Value::Null) => "UNDEFINED".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => match n.as_i64() {
            Some(0) => "UNDEFINED".into(),
            Some(1) => "SCALE".into(),
            Some(2) => "SHIFT".into(),
            Some(3) => "SCALE_AND_SHIFT".into(),
            _ => return Err(contract(T, "`rescale` is not 0..3")),
        },
        Some(_) => return Err(contract(T, "`rescale` is not a name")),
    };
    let (scale, shift) = match rescale.as_str() {
        "UNDEFINED" => (false, false),
        "SCALE" => (true, false),
        "SHIFT" => (false, true),
        "SCALE_AND_SHIFT" => (true, true),
        other => {
            return Err(contract(
                T,
                format!("`rescale` {other} is not one oneDNN has"),
            ));
        }
    };
    let epsilon = f32::from_bits(int_field(T, &cfg, "epsilon_typecast", 0)? as u32) as f64;
    let want = 1 + scale as usize + shift as usize;
    let ([y], [x, params @ ..]) = (out, ins) else {
        return Err(contract(
            T,
            "takes one array (and its scale and shift) and returns one array",
        ));
    };
    let d = x.shape.dims.clone();
    let r = d.len();
    let params_ok = params.iter().all(|p| {
        p.shape.dims.len() == 1 && r > 0 && p.shape.dims[0] == d[r - 1] && is_float(p.shape.ty)
    });
    if params.len() + 1 != want
        || r == 0
        || y.shape.dims != d
        || !is_float(x.shape.ty)
        || !is_float(y.shape.ty)
        || !params_ok
    {
        return Err(contract(
            T,
            format!(
                "with rescale={rescale}, takes x, then {} of shape [{}], and returns x's shape; got {} operand(s) for {}",
                match (scale, shift) {
                    (true, true) => "scale and shift",
                    (true, false) => "scale",
                    (false, true) => "shift",
                    (false, false) => "nothing",
                },
                d.last().copied().unwrap_or(0),
                params.len() + 1,
                y.shape
            ),
        ));
    }
    let n = d[r - 1];
    for row in indices(&d[..r - 1]) {
        let at = |j: i64| {
            let mut i = row.clone();
            i.push(j);
            i
        };
        let v: Vec<f64> = (0..n).map(|j| read(x, &at(j))).collect();
        let mean = v.iter().sum::<f64>() / n as f64;
        let var = v.iter().map(|t| (t - mean) * (t - mean)).sum::<f64>() / n as f64;
        let inv = 1.0 / (var + epsilon).sqrt();
        for j in 0..n {
            let mut t = (v[j as usize] - mean) * inv;
            let mut p = params.iter();
            if scale {
                t *= p.next().map(|s| read(s, &[j])).unwrap_or(1.0);
            }
            if shift {
                t += p.next().map(|s| read(s, &[j])).unwrap_or(0.0);
            }
            write(y, &at(j), t)?;
        }
    }
    Ok(())
}

/// `__onednn$softmax(x)` along `softmax_axis`: `exp(x - max) / sum(exp(x - max))`.
pub(super) fn softmax(
    out: &mut [CustomCallBuffer],
    ins: &[CustomCallBuffer],
    text: &str,
) -> Result<()> {
    const T: &str = "__onednn$softmax";
    let cfg = config(T, text, "onednn_softmax_config")?;
    let ([y], [x]) = (out, ins) else {
        return Err(contract(
            T,
            "takes one float array and returns one of the same shape",
        ));
    };
    let d = x.shape.dims.clone();
    let axis = int_field(T, &cfg, "softmax_axis", 0)?;
    if y.shape.dims != d
        || !is_float(x.shape.ty)
        || !is_float(y.shape.ty)
        || axis < 0
        || axis as usize >= d.len()
    {
        return Err(contract(
            T,
            format!(
                "takes one float array and returns one of its shape, with softmax_axis in [0, rank); got {} -> {}, axis {axis}",
                x.shape, y.shape
            ),
        ));
    }
    let axis = axis as usize;
    let mut outer = d.clone();
    outer[axis] = 1;
    for base in indices(&outer) {
        let at = |j: i64| {
            let mut i = base.clone();
            i[axis] = j;
            i
        };
        let v: Vec<f64> = (0..d[axis]).map(|j| read(x, &at(j))).collect();
        let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = v.iter().map(|t| (t - max).exp()).collect();
        let sum: f64 = e.iter().sum();
        for (j, ej) in e.iter().enumerate() {
            write(y, &at(j as i64), ej / sum)?;
        }
    }
    Ok(())
}

/// `__onednn$convolution(input, kernel, extra...)`: the convolution the config describes
/// (dimension numbers, padding, strides, kernel dilation, feature groups; no base dilation),
/// then the post-ops.
pub(super) fn convolution(
    out: &mut [CustomCallBuffer],
    ins: &[CustomCallBuffer],
    text: &str,
) -> Result<()> {
    const T: &str = "__onednn$convolution";
    let cfg = config(T, text, "onednn_conv_config")?;
    let ([y], [x, w, extra @ ..]) = (out, ins) else {
        return Err(contract(
            T,
            "takes an input, a kernel (and post-op operands) and returns one array",
        ));
    };
    let data = |which: &str| -> Result<(i64, i64, Vec<i64>)> {
        let d = cfg
            .get(which)
            .and_then(|t| t.get("data"))
            .cloned()
            .unwrap_or(Value::Null);
        Ok((
            int_field(T, &d, "batch_dim", 0)?,
            int_field(T, &d, "feature_dim", 0)?,
            int_list(T, &d, "spatial_dims")?,
        ))
    };
    let (xb, xf, xs) = data("input")?;
    let (yb, yf, ys) = data("output")?;
    let f = cfg
        .get("kernel")
        .and_then(|t| t.get("filter"))
        .cloned()
        .unwrap_or(Value::Null);
    let (wi, wo, ws) = (
        int_field(T, &f, "input_feature_dim", 0)?,
        int_field(T, &f, "output_feature_dim", 0)?,
        int_list(T, &f, "spatial_dims")?,
    );
    let win = cfg.get("window").cloned().unwrap_or(Value::Null);
    let nsp = xs.len();
    let list = |key: &str, default: i64| -> Result<Vec<i64>> {
        let v = int_list(T, &win, key)?;
        Ok(if v.is_empty() { vec![default; nsp] } else { v })
    };
    let (lo, hi, stride, dil) = (
        list("pad_left", 0)?,
        list("pad_right", 0)?,
        list("strides", 1)?,
        list("window_dilations", 1)?,
    );
    let groups = int_field(T, &cfg, "feature_groups", 1)?.max(1);
    let (xd, wd, yd) = (
        x.shape.dims.clone(),
        w.shape.dims.clone(),
        y.shape.dims.clone(),
    );
    let r = xd.len();
    let dims_ok = |ds: &[i64], rank: usize| ds.iter().all(|&d| d >= 0 && (d as usize) < rank);
    let mut all_x: Vec<i64> = [xb, xf].into_iter().chain(xs.iter().copied()).collect();
    let mut all_w: Vec<i64> = [wi, wo].into_iter().chain(ws.iter().copied()).collect();
    let mut all_y: Vec<i64> = [yb, yf].into_iter().chain(ys.iter().copied()).collect();
    let permutation = |v: &mut Vec<i64>| {
        v.sort();
        v.iter().enumerate().all(|(i, &d)| d == i as i64)
    };
    let shapes_ok = wd.len() == r
        && yd.len() == r
        && r == nsp + 2
        && ws.len() == nsp
        && ys.len() == nsp
        && [lo.len(), hi.len(), stride.len(), dil.len()]
            .iter()
            .all(|&l| l == nsp)
        && dims_ok(&all_x, r)
        && dims_ok(&all_w, r)
        && dims_ok(&all_y, r)
        && permutation(&mut all_x)
        && permutation(&mut all_w)
        && permutation(&mut all_y)
        && stride.iter().chain(&dil).all(|&s| s >= 1)
        && lo.iter().chain(&hi).all(|&p| p >= 0)
        && [x.shape.ty, w.shape.ty, y.shape.ty]
            .into_iter()
            .all(is_float);
    if !shapes_ok {
        return Err(contract(
            T,
            format!(
                "the config's dimension numbers and window do not describe a convolution of {} by {} (float arrays of one rank, spatial dimensions listed once each, strides and dilations >= 1, paddings >= 0)",
                x.shape, w.shape
            ),
        ));
    }
    let (c, o) = (xd[xf as usize], wd[wo as usize]);
    let ci = wd[wi as usize];
    let expect_out: Vec<i64> = (0..nsp)
        .map(|s| {
            let input = xd[xs[s] as usize] + lo[s] + hi[s];
            let window = (wd[ws[s] as usize] - 1) * dil[s] + 1;
            if input < window {
                0
            } else {
                (input - window) / stride[s] + 1
            }
        })
        .collect();
    if c != ci * groups
        || o % groups != 0
        || yd[yb as usize] != xd[xb as usize]
        || yd[yf as usize] != o
        || (0..nsp).any(|s| yd[ys[s] as usize] != expect_out[s])
    {
        return Err(contract(
            T,
            format!(
                "{} by {} with {groups} feature group(s), padding {lo:?}/{hi:?}, strides {stride:?}, dilations {dil:?} gives spatial sizes {expect_out:?} and {o} features, not {}",
                x.shape, w.shape, y.shape
            ),
        ));
    }
    let ops = post_ops(T, &cfg, extra, &yd)?;
    let og = o / groups;
    let kernel_sizes: Vec<i64> = ws.iter().map(|&d| wd[d as usize]).collect();
    for idx in indices(&yd) {
        let (b, of) = (idx[yb as usize], idx[yf as usize]);
        let g = of / og;
        let mut s = 0.0;
        for kpos in indices(&kernel_sizes) {
            let mut xi = vec![0; r];
            xi[xb as usize] = b;
            let mut inside = true;
            for sp in 0..nsp {
                let pos = idx[ys[sp] as usize] * stride[sp] + kpos[sp] * dil[sp] - lo[sp];
                if pos < 0 || pos >= xd[xs[sp] as usize] {
                    inside = false;
                    break;
                }
                xi[xs[sp] as usize] = pos;
            }
            if !inside {
                continue;
            }
            let mut wi_idx = vec![0; r];
            for sp in 0..nsp {
                wi_idx[ws[sp] as usize] = kpos[sp];
            }
            wi_idx[wo as usize] = of;
            for i in 0..ci {
                xi[xf as usize] = g * ci + i;
                wi_idx[wi as usize] = i;
                s += read(x, &xi) * read(w, &wi_idx);
            }
        }
        let v = apply(&ops, extra, &idx, s);
        write(y, &idx, v)?;
    }
    Ok(())
}
