//! Batch normalisation (training, inference, gradient), computed in f64 with two-pass moments and
//! rounded once to the operand type. The batch statistics are the population mean and the biased
//! (divide by N) variance over every dimension except the feature dimension, as the seed's formulas
//! state.

use super::{from_f64, to_f64};
use crate::error::{Error, Result};
use crate::eval::array;
use crate::hlo::attrs::BatchNormAttrs;
use crate::literal::{Array, Literal};
use crate::shape::ArrayShape;

/// Per-element feature index and per-feature element count for an operand.
struct Features {
    of: Vec<usize>,
    count: usize,
    n: usize,
}

fn features(x: &ArrayShape, attrs: &BatchNormAttrs) -> Result<Features> {
    let f = usize::try_from(attrs.feature_index)
        .ok()
        .filter(|&f| f < x.rank())
        .ok_or_else(|| Error::internal("feature_index out of range"))?;
    let strides = x.row_major_strides();
    let n = x.dims[f] as usize;
    let total = x.element_count();
    let of = (0..total).map(|k| (k / strides[f]) % n.max(1)).collect();
    Ok(Features {
        of,
        count: total.checked_div(n).unwrap_or(0),
        n,
    })
}

fn epsilon(attrs: &BatchNormAttrs) -> f64 {
    // XLA keeps epsilon as an f32 attribute; use that value exactly.
    attrs.epsilon as f64
}

fn moments(x: &[f64], f: &Features) -> (Vec<f64>, Vec<f64>) {
    let mut mean = vec![0.0; f.n];
    for (v, &l) in x.iter().zip(&f.of) {
        mean[l] += v;
    }
    let m = f.count as f64;
    mean.iter_mut().for_each(|s| *s /= m);
    let mut var = vec![0.0; f.n];
    for (v, &l) in x.iter().zip(&f.of) {
        var[l] += (v - mean[l]) * (v - mean[l]);
    }
    var.iter_mut().for_each(|s| *s /= m);
    (mean, var)
}

fn out(shape: &ArrayShape, v: Vec<f64>) -> Result<Literal> {
    Ok(Literal::Array(Array::from_data(
        shape.clone(),
        from_f64(shape.ty, v)?,
    )?))
}

fn normalise(
    x: &[f64],
    f: &Features,
    mean: &[f64],
    var: &[f64],
    scale: &[f64],
    offset: &[f64],
    eps: f64,
) -> Vec<f64> {
    x.iter()
        .zip(&f.of)
        .map(|(&v, &l)| (v - mean[l]) / (var[l] + eps).sqrt() * scale[l] + offset[l])
        .collect()
}

pub fn training(attrs: &BatchNormAttrs, ops: &[&Literal]) -> Result<Literal> {
    let (x, scale, offset) = (array(ops, 0)?, array(ops, 1)?, array(ops, 2)?);
    let f = features(&x.shape, attrs)?;
    let xv = to_f64(x)?;
    let (mean, var) = moments(&xv, &f);
    let y = normalise(
        &xv,
        &f,
        &mean,
        &var,
        &to_f64(scale)?,
        &to_f64(offset)?,
        epsilon(attrs),
    );
    Ok(Literal::Tuple(vec![
        out(&x.shape, y)?,
        out(&scale.shape, mean)?,
        out(&scale.shape, var)?,
    ]))
}

pub fn inference(attrs: &BatchNormAttrs, ops: &[&Literal]) -> Result<Literal> {
    let (x, scale, offset, mean, var) = (
        array(ops, 0)?,
        array(ops, 1)?,
        array(ops, 2)?,
        array(ops, 3)?,
        array(ops, 4)?,
    );
    let f = features(&x.shape, attrs)?;
    let y = normalise(
        &to_f64(x)?,
        &f,
        &to_f64(mean)?,
        &to_f64(var)?,
        &to_f64(scale)?,
        &to_f64(offset)?,
        epsilon(attrs),
    );
    out(&x.shape, y)
}

pub fn grad(attrs: &BatchNormAttrs, ops: &[&Literal]) -> Result<Literal> {
    let (x, scale, mean, var, dy) = (
        array(ops, 0)?,
        array(ops, 1)?,
        array(ops, 2)?,
        array(ops, 3)?,
        array(ops, 4)?,
    );
    let f = features(&x.shape, attrs)?;
    let (xv, dyv) = (to_f64(x)?, to_f64(dy)?);
    let (mu, s2, gamma) = (to_f64(mean)?, to_f64(var)?, to_f64(scale)?);
    let eps = epsilon(attrs);
    let m = f.count as f64;
    // c_l = mean(dy·(x−μ))/(σ²+ε), d_l = mean(dy); sums for the scale and offset gradients.
    let (mut sum_dy_xc, mut sum_dy) = (vec![0.0; f.n], vec![0.0; f.n]);
    for ((&v, &g), &l) in xv.iter().zip(&dyv).zip(&f.of) {
        sum_dy_xc[l] += g * (v - mu[l]);
        sum_dy[l] += g;
    }
    let dx = xv
        .iter()
        .zip(&dyv)
        .zip(&f.of)
        .map(|((&v, &g), &l)| {
            let c = sum_dy_xc[l] / m / (s2[l] + eps);
            let d = sum_dy[l] / m;
            gamma[l] / (s2[l] + eps).sqrt() * (g - d - c * (v - mu[l]))
        })
        .collect();
    let dscale = (0..f.n)
        .map(|l| sum_dy_xc[l] / (s2[l] + eps).sqrt())
        .collect();
    Ok(Literal::Tuple(vec![
        out(&x.shape, dx)?,
        out(&scale.shape, dscale)?,
        out(&scale.shape, sum_dy)?,
    ]))
}

#[cfg(test)]
mod tests {
    use crate::eval::{RunOptions, run};
    use crate::hlo::{parse_literal, parse_module};

    /// Runs a module; skipped (returns None) while the verifier cannot check the op yet.
    fn try_run(text: &str, args: &[&str]) -> Option<String> {
        let mut m = parse_module(text).unwrap();
        crate::verify::verify_module(&mut m, &Default::default()).ok()?;
        let args = args.iter().map(|a| parse_literal(a).unwrap()).collect();
        Some(
            run(&m, args, &RunOptions::default())
                .unwrap()
                .result
                .to_string(),
        )
    }

    #[test]
    fn training_normalises_each_feature() {
        let text = "HloModule m\nENTRY e {\n x = f32[2,2] parameter(0)\n s = f32[2] constant({1, 2})\n o = f32[2] constant({0, 10})\n ROOT b = (f32[2,2], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=0, feature_index=1\n}";
        if let Some(r) = try_run(text, &["f32[2,2] {{1, 10}, {3, 30}}"]) {
            assert_eq!(
                r,
                "(f32[2,2] {{-1, 8}, {1, 12}}, f32[2] {2, 20}, f32[2] {1, 100})"
            );
        }
    }
}
