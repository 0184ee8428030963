//! Non-default layouts on the ENTRY's parameters and result. Arguments and results are logical
//! values (row-major data whatever the layout), so a layout must not change any answer: a
//! backend that copies buffers in the wrong order, or ignores the caller's layout, disagrees.

use super::{Draft, Rng};
use crate::hlo::printer::print_module;
use crate::shape::{Layout, Shape};
use crate::verify::parse_and_verify;

/// A `minor_to_major` order other than the default one, for rank 2 or more.
fn odd_layout(rng: &mut Rng, rank: usize) -> Layout {
    loop {
        let mut perm: Vec<i64> = (0..rank as i64).collect();
        for i in (1..rank).rev() {
            perm.swap(i, rng.below(i + 1));
        }
        let l = Layout::new(perm);
        if !l.is_default() {
            return l;
        }
    }
}

/// Gives some of the ENTRY's parameters, its result, or both, a non-default layout, and
/// sometimes states them in the header's `entry_computation_layout` as well. The draft is
/// rewritten as the printed module (full shapes); one it cannot verify is left as it is.
pub fn decorate(d: &mut Draft, rng: &mut Rng) {
    let Ok(mut m) = parse_and_verify(&d.hlo) else {
        return;
    };
    let entry = m.entry;
    let comp = &mut m.computations[entry];
    let root = comp.root;
    let mut changed = false;
    for (id, inst) in comp.instructions.iter_mut().enumerate() {
        let wanted = inst.parameter_number().is_some() || id == root;
        if let (true, Shape::Array(a)) = (wanted, &mut inst.shape)
            && a.dims.len() >= 2
            && rng.chance(60)
        {
            a.layout = Some(odd_layout(rng, a.dims.len()));
            changed = true;
        }
    }
    if !changed {
        return;
    }
    if rng.chance(50) {
        let comp = &m.computations[entry];
        m.entry_layout = Some((comp.parameter_shapes(), comp.root().shape.clone()));
    }
    d.hlo = print_module(&m);
}

/// True when the module text gives some shape a layout other than the default.
pub fn has_odd_layout(hlo: &str) -> bool {
    let Ok(m) = parse_and_verify(hlo) else {
        return false;
    };
    m.computations.iter().any(|c| {
        c.instructions.iter().any(|i| match &i.shape {
            Shape::Array(a) => a.layout.as_ref().is_some_and(|l| !l.is_default()),
            _ => false,
        })
    })
}
