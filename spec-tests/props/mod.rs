//! Property tests, one module per area. Each module returns its trials, named
//! `prop::<area>::<name>`.

mod collective;
mod control;
mod drafted;
mod elementwise;
mod front_end;
mod fusion;
mod indexing;
mod layout;
mod linalg;
mod movement;
mod numerics;
mod reduction;
mod seeded;

use libtest_mimic::Trial;

pub fn trials() -> Vec<Trial> {
    let mut t = Vec::new();
    t.extend(front_end::trials());
    t.extend(layout::trials());
    t.extend(elementwise::trials());
    t.extend(fusion::trials());
    t.extend(movement::trials());
    t.extend(reduction::trials());
    t.extend(indexing::trials());
    t.extend(linalg::trials());
    t.extend(control::trials());
    t.extend(numerics::trials());
    t.extend(collective::trials());
    t.extend(drafted::trials());
    t
}
