//! Properties of the collectives, run as real multi-replica programs with random replica counts
//! (1–4), random group layouts and random shapes, each compared with a formula computed here from
//! the replicas' inputs:
//! - `all_reduce_is_reduce_over_replicas`: an integer sum all-reduce gives every member the sum of
//!   its group's inputs;
//! - `all_gather_slices_back`: block `position` of an all-gather result is the member's own input;
//! - `reduce_scatter_is_all_reduce_then_slice`: each member gets its block of the group sum;
//! - `collective_permute_moves_values`: targets get their source's value, others zeros.

use super::seeded::{Rng, seeded_trial};
use libtest_mimic::Trial;
use xla_spec::eval::{RunOptions, run_replicated};
use xla_spec::literal::Literal;
use xla_spec::verify::parse_and_verify;

pub fn trials() -> Vec<Trial> {
    vec![
        trial(
            "all_reduce_is_reduce_over_replicas",
            40,
            all_reduce_is_reduce_over_replicas,
        ),
        trial("all_gather_slices_back", 40, all_gather_slices_back),
        trial(
            "reduce_scatter_is_all_reduce_then_slice",
            40,
            reduce_scatter_is_all_reduce_then_slice,
        ),
        trial(
            "collective_permute_moves_values",
            40,
            collective_permute_moves_values,
        ),
    ]
}

fn trial(name: &str, cases: u32, f: fn(u64) -> Result<(), String>) -> Trial {
    seeded_trial("collective", name, cases, f)
}

/// `n` replicas cut into groups of `size` (which divides `n`), in a random order.
fn groups(r: &mut Rng, n: usize, size: usize) -> Vec<Vec<usize>> {
    let mut ids: Vec<usize> = (0..n).collect();
    r.shuffle(&mut ids);
    ids.chunks(size).map(|c| c.to_vec()).collect()
}

fn groups_text(g: &[Vec<usize>]) -> String {
    let inner: Vec<String> = g
        .iter()
        .map(|x| {
            format!(
                "{{{}}}",
                x.iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            )
        })
        .collect();
    format!("{{{}}}", inner.join(","))
}

fn setup(r: &mut Rng) -> (usize, usize, Vec<Vec<usize>>) {
    let n = 1 + r.below(4);
    let divisors: Vec<usize> = (1..=n).filter(|d| n.is_multiple_of(*d)).collect();
    let size = divisors[r.below(divisors.len())];
    let g = groups(r, n, size);
    (n, size, g)
}

fn inputs(r: &mut Rng, n: usize, len: usize) -> Vec<Vec<i32>> {
    (0..n)
        .map(|_| (0..len).map(|_| (r.next() % 2001) as i32 - 1000).collect())
        .collect()
}

fn run(text: &str, per_replica: Vec<Vec<i32>>, dims: Vec<i64>) -> Result<Vec<Vec<i32>>, String> {
    let m = parse_and_verify(text).map_err(|e| format!("{e}\n{text}"))?;
    let args = per_replica
        .into_iter()
        .map(|v| {
            Literal::vec(dims.clone(), v)
                .map(|l| vec![l])
                .map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<_>, _>>()?;
    let outs = run_replicated(&m, args, &RunOptions::default()).map_err(|e| e.to_string())?;
    outs.into_iter()
        .map(|o| {
            o.result
                .as_array()
                .and_then(|a| a.typed::<i32>())
                .map(|v| v.to_vec())
                .ok_or("s32 result".into())
        })
        .collect()
}

const ADD: &str =
    "add {\n a = s32[] parameter(0)\n b = s32[] parameter(1)\n ROOT s = s32[] add(a, b)\n}\n";

fn group_sum(g: &[usize], x: &[Vec<i32>]) -> Vec<i32> {
    let len = x[0].len();
    (0..len)
        .map(|k| {
            g.iter()
                .map(|&m| x[m][k])
                .fold(0i32, |a, b| a.wrapping_add(b))
        })
        .collect()
}

fn all_reduce_is_reduce_over_replicas(seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let (n, _, g) = setup(&mut r);
    let len = 1 + r.below(6);
    let x = inputs(&mut r, n, len);
    let text = format!(
        "HloModule m, replica_count={n}\n{ADD}ENTRY e {{\n x = s32[{len}] parameter(0)\n ROOT r = s32[{len}] all-reduce(x), replica_groups={}, to_apply=add\n}}\n",
        groups_text(&g)
    );
    let out = run(&text, x.clone(), vec![len as i64])?;
    for grp in &g {
        let want = group_sum(grp, &x);
        for &m in grp {
            if out[m] != want {
                return Err(format!(
                    "replica {m} in {grp:?}: got {:?}, want {want:?}",
                    out[m]
                ));
            }
        }
    }
    Ok(())
}

fn all_gather_slices_back(seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let (n, size, g) = setup(&mut r);
    let len = 1 + r.below(4);
    let x = inputs(&mut r, n, len);
    let text = format!(
        "HloModule m, replica_count={n}\nENTRY e {{\n x = s32[{len}] parameter(0)\n ROOT r = s32[{}] all-gather(x), replica_groups={}, dimensions={{0}}\n}}\n",
        len * size,
        groups_text(&g)
    );
    let out = run(&text, x.clone(), vec![len as i64])?;
    for grp in &g {
        for &m in grp {
            for (pos, &src) in grp.iter().enumerate() {
                if out[m][pos * len..(pos + 1) * len] != x[src][..] {
                    return Err(format!(
                        "replica {m}: block {pos} is not replica {src}'s input"
                    ));
                }
            }
        }
    }
    Ok(())
}

fn reduce_scatter_is_all_reduce_then_slice(seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let (n, size, g) = setup(&mut r);
    let block = 1 + r.below(3);
    let len = block * size;
    let x = inputs(&mut r, n, len);
    let text = format!(
        "HloModule m, replica_count={n}\n{ADD}ENTRY e {{\n x = s32[{len}] parameter(0)\n ROOT r = s32[{block}] reduce-scatter(x), replica_groups={}, dimensions={{0}}, to_apply=add\n}}\n",
        groups_text(&g)
    );
    let out = run(&text, x.clone(), vec![len as i64])?;
    for grp in &g {
        let sum = group_sum(grp, &x);
        for (pos, &m) in grp.iter().enumerate() {
            if out[m][..] != sum[pos * block..(pos + 1) * block] {
                return Err(format!("replica {m} at position {pos}: {:?}", out[m]));
            }
        }
    }
    Ok(())
}

fn collective_permute_moves_values(seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let n = 1 + r.below(4);
    let mut targets: Vec<usize> = (0..n).collect();
    r.shuffle(&mut targets);
    // Each source sends to a distinct target; some sources are dropped.
    let pairs: Vec<(usize, usize)> = (0..n)
        .filter(|_| r.below(3) != 0)
        .map(|s| (s, targets[s]))
        .collect();
    let len = 1 + r.below(3);
    let x = inputs(&mut r, n, len);
    let pairs_text = format!(
        "{{{}}}",
        pairs
            .iter()
            .map(|(s, t)| format!("{{{s},{t}}}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let text = format!(
        "HloModule m, replica_count={n}\nENTRY e {{\n x = s32[{len}] parameter(0)\n ROOT r = s32[{len}] collective-permute(x), source_target_pairs={pairs_text}\n}}\n"
    );
    let out = run(&text, x.clone(), vec![len as i64])?;
    for (m, got) in out.iter().enumerate() {
        let want = match pairs.iter().find(|(_, t)| *t == m) {
            Some(&(s, _)) => x[s].clone(),
            None => vec![0; len],
        };
        if *got != want {
            return Err(format!(
                "replica {m} with pairs {pairs:?}: got {got:?}, want {want:?}"
            ));
        }
    }
    Ok(())
}
