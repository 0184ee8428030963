//! Backends: anything that can execute a verified HLO module. The reference runtime is the default;
//! `process::ProcessBackend` drives any program that speaks the JSON-lines protocol the book
//! documents.

pub mod process;

use crate::error::Result;
use crate::eval::{self, RunOptions};
use crate::hlo::Module;
use crate::literal::Literal;

/// One execution request.
pub struct Request<'a> {
    /// The module as HLO text (what an external backend receives).
    pub hlo: &'a str,
    /// The same module, parsed and verified; `None` when the reference front end refused it (an
    /// external backend still receives the text, to show it refuses too).
    pub module: Option<&'a Module>,
    /// Arguments, one list per replica.
    pub args: &'a [Vec<Literal>],
    /// Values `infeed` reads, in order.
    pub infeed: &'a [Literal],
}

/// What a backend returns: the entry root's value for each replica, and what `outfeed` wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    pub results: Vec<Literal>,
    pub outfeed: Vec<Vec<Literal>>,
}

pub trait Backend: Send {
    /// A short name for reports (`reference`, or the external program's own name and version).
    fn name(&self) -> String;
    /// Executes `req.module` as `req.args.len()` replicas.
    fn execute(&mut self, req: &Request) -> Result<Response>;
    /// True only for the built-in reference runtime, whose error messages `expected_error` is
    /// matched against (an external backend passes such a case by refusing in its own words).
    fn is_reference(&self) -> bool {
        false
    }
}

/// The built-in reference runtime.
#[derive(Default)]
pub struct ReferenceBackend {
    pub options: RunOptions,
}

impl Backend for ReferenceBackend {
    fn name(&self) -> String {
        format!("xla-spec reference {}", env!("CARGO_PKG_VERSION"))
    }
    fn execute(&mut self, req: &Request) -> Result<Response> {
        let mut opts = self.options.clone();
        opts.infeed = req.infeed.to_vec();
        let parsed;
        let module = match req.module {
            Some(m) => m,
            None => {
                let opts = crate::verify::Options {
                    replicas: Some(req.args.len()),
                    ..Default::default()
                };
                parsed = crate::verify::parse_and_verify_with(req.hlo, &opts)?;
                &parsed
            }
        };
        let outs = eval::run_replicated(module, req.args.to_vec(), &opts)?;
        Ok(Response {
            results: outs.iter().map(|o| o.result.clone()).collect(),
            outfeed: outs.into_iter().map(|o| o.outfeed).collect(),
        })
    }
    fn is_reference(&self) -> bool {
        true
    }
}
