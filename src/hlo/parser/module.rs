//! Modules, computations and instructions: names are bound to indices as they are defined, each
//! instruction's attributes are read (`raw`) and decoded into its typed op (`hlo::attrs`).

use super::raw::RawAttr;
use super::{Parser, Scope};
use crate::error::{Error, Location, Result};
use crate::hlo::ast::*;
use crate::hlo::attrs::{Decoder, Paren};
use crate::hlo::opcode::{Op, Opcode};
use crate::shape::Shape;
use crate::syntax::{Tok, comma_list, describe, is_identifier, syntax};
use crate::types::ElementType;
use std::collections::HashMap;

impl Parser {
    pub(super) fn module(&mut self) -> Result<Module> {
        let loc = self.loc();
        match self.next() {
            Tok::Word(w) if w == "HloModule" => {}
            other => {
                return Err(syntax(
                    format!(
                        "a module starts with `HloModule <name>`, found {}",
                        describe(&other)
                    ),
                    loc,
                ));
            }
        }
        let name = match self.next() {
            Tok::Word(w) | Tok::Name(w) => w,
            other => {
                return Err(syntax(
                    format!("expected the module name, found {}", describe(&other)),
                    self.loc(),
                ));
            }
        };
        let (mut replica_count, mut num_partitions, mut entry_layout) = (None, None, None);
        while self.eat(&Tok::Comma) {
            let loc = self.loc();
            let key = match self.next() {
                Tok::Key(k) => k,
                other => {
                    return Err(syntax(
                        format!("expected a module attribute, found {}", describe(&other)),
                        loc,
                    ));
                }
            };
            match key.as_str() {
                "replica_count" => {
                    let n = self.int("replica_count")?;
                    if !(1..=1024).contains(&n) {
                        return Err(Error::invalid(
                            "module.replica_count",
                            format!("replica_count must be between 1 and 1024, got {n}"),
                        )
                        .at_location(loc));
                    }
                    replica_count = Some(n);
                }
                "num_partitions" => num_partitions = Some(self.int("num_partitions")?),
                "entry_computation_layout" => {
                    self.expect(Tok::LBrace, "`{` opening the entry computation layout")?;
                    self.expect(Tok::LParen, "`(` opening the parameter shapes")?;
                    let params = comma_list(self, Tok::RParen, "`)`", |p| p.shape())?;
                    self.expect(Tok::Arrow, "`->` before the result shape")?;
                    let result = self.shape()?;
                    self.expect(Tok::RBrace, "`}` closing the entry computation layout")?;
                    entry_layout = Some((params, result));
                }
                _ => {
                    self.opaque_value()?;
                }
            }
        }
        self.debug_sections()?;
        let mut entry = None;
        while *self.peek() != Tok::Eof {
            let (id, is_entry) = self.computation()?;
            if is_entry {
                if entry.is_some() {
                    let c = &self.comps[id];
                    return Err(Error::invalid(
                        "module.one_entry",
                        "a module may mark only one computation ENTRY",
                    )
                    .at(&c.name, c.loc));
                }
                entry = Some(id);
            }
        }
        if self.comps.is_empty() {
            return Err(syntax("the module has no computations", self.loc()));
        }
        let entry = entry.unwrap_or(self.comps.len() - 1);
        Ok(Module {
            name,
            computations: std::mem::take(&mut self.comps),
            entry,
            replica_count,
            num_partitions,
            entry_layout,
            verified_replicas: None,
        })
    }

    /// The source-location tables XLA prints after the header (`FileNames`, `FunctionNames`,
    /// `FileLocations`, `StackFrames`): numbered entries that `metadata={stack_frame_id=N}`
    /// points into. They say where the program came from and do not affect its values.
    fn debug_sections(&mut self) -> Result<()> {
        const SECTIONS: [&str; 4] = ["FileNames", "FunctionNames", "FileLocations", "StackFrames"];
        while matches!(self.peek(), Tok::Word(w) if SECTIONS.contains(&w.as_str()))
            && matches!(self.peek_at(1), Tok::Word(n) if n.bytes().all(|b| b.is_ascii_digit()))
        {
            self.next();
            while matches!(self.peek(), Tok::Word(n) if n.bytes().all(|b| b.is_ascii_digit())) {
                self.next();
                let loc = self.loc();
                match self.peek() {
                    Tok::Str(_) => {
                        self.next();
                    }
                    Tok::LBrace => {
                        self.opaque_value()?;
                    }
                    other => {
                        return Err(syntax(
                            format!(
                                "a source-location table entry is a number and a string or `{{...}}`, found {}",
                                describe(other)
                            ),
                            loc,
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    fn computation(&mut self) -> Result<(CompId, bool)> {
        let loc = self.loc();
        let mut is_entry = false;
        if matches!(self.peek(), Tok::Word(w) if w == "ENTRY") {
            self.next();
            is_entry = true;
        }
        let name = match self.next() {
            Tok::Word(w) if is_identifier(&w) => w,
            other => {
                return Err(syntax(
                    format!("expected a computation name, found {}", describe(&other)),
                    loc,
                ));
            }
        };
        if self.comp_names.contains_key(&name) {
            return Err(Error::invalid(
                "module.unique_computation_names",
                format!("computation `{name}` is defined twice"),
            )
            .at_location(loc));
        }
        let mut signature = None;
        if *self.peek() == Tok::LParen {
            self.next();
            let params = comma_list(self, Tok::RParen, "`)`", |p| {
                match p.next() {
                    Tok::Name(_) => {}
                    other => {
                        return Err(syntax(
                            format!(
                                "expected `name:` in the computation signature, found {}",
                                describe(&other)
                            ),
                            p.loc(),
                        ));
                    }
                }
                p.shape()
            })?;
            self.expect(Tok::Arrow, "`->` after the parameter list")?;
            let result = self.shape()?;
            signature = Some((params, result));
        }
        let id = self.computation_body(name, loc)?;
        if self.eat(&Tok::Comma) {
            // `, execution_thread="..."`
            match self.next() {
                Tok::Key(_) => {
                    self.opaque_value()?;
                }
                other => {
                    return Err(syntax(
                        format!("expected an attribute, found {}", describe(&other)),
                        self.loc(),
                    ));
                }
            }
        }
        if let Some((params, _)) = signature {
            let c = &self.comps[id];
            let ps = c.parameters();
            if ps.len() != params.len()
                || ps.iter().zip(&params).any(|(i, s)| !i.shape.compatible(s))
            {
                return Err(Error::invalid(
                    "computation.signature",
                    format!("the signature lists {} parameter(s) that do not match the computation's parameter instructions", params.len()),
                )
                .at(&c.name, c.loc));
            }
        }
        Ok((id, is_entry))
    }

    /// `{ instruction* }`; registers the computation and returns its id.
    pub(super) fn computation_body(&mut self, name: String, loc: Location) -> Result<CompId> {
        self.enter()?;
        self.expect(Tok::LBrace, "`{` to open the computation body")?;
        let mut scope = Scope {
            insts: vec![],
            names: HashMap::new(),
            root: None,
        };
        while *self.peek() != Tok::RBrace {
            if *self.peek() == Tok::Eof {
                return Err(syntax(
                    format!("computation `{name}` is not closed with `}}`"),
                    self.loc(),
                ));
            }
            self.instruction(&mut scope)?;
        }
        self.next();
        self.leave();
        if scope.insts.is_empty() {
            return Err(Error::invalid(
                "computation.nonempty",
                format!("computation `{name}` has no instructions"),
            )
            .at(&name, loc));
        }
        let root = scope.root.unwrap_or(scope.insts.len() - 1);
        let id = self.comps.len();
        self.comp_names.insert(name.clone(), id);
        self.comps.push(Computation {
            name,
            instructions: scope.insts,
            root,
            loc,
        });
        Ok(id)
    }

    fn instruction(&mut self, scope: &mut Scope) -> Result<()> {
        let loc = self.loc();
        let mut is_root = false;
        if matches!(self.peek(), Tok::Word(w) if w == "ROOT")
            && matches!(self.peek_at(1), Tok::Word(_) | Tok::Key(_))
        {
            self.next();
            is_root = true;
        }
        let name_loc = self.loc();
        let name = match self.next() {
            Tok::Word(w) => {
                self.expect(Tok::Equals, "`=` after the instruction name")?;
                w
            }
            Tok::Key(w) => w,
            other => {
                return Err(syntax(
                    format!(
                        "expected an instruction `name = ...`, found {}",
                        describe(&other)
                    ),
                    name_loc,
                ));
            }
        };
        if !is_identifier(&name) || ElementType::from_name(&name).is_some() {
            return Err(syntax(
                format!("illegal instruction name {name:?}"),
                name_loc,
            ));
        }
        if scope.names.contains_key(&name) {
            return Err(Error::invalid(
                "computation.unique_names",
                format!("instruction name `{name}` is used twice"),
            )
            .at(&name, name_loc));
        }
        let inst = self.instruction_rest(scope, name.clone(), loc, true)?;
        let id = scope.insts.len();
        scope.insts.push(inst);
        scope.names.insert(name.clone(), id);
        if is_root {
            if scope.root.is_some() {
                return Err(Error::invalid(
                    "computation.one_root",
                    "a computation may have only one ROOT",
                )
                .at(&name, loc));
            }
            scope.root = Some(id);
        }
        Ok(())
    }

    /// `[shape] opcode(operands) [, attr=value]*` (attributes only when `with_attrs`).
    fn instruction_rest(
        &mut self,
        scope: &mut Scope,
        name: String,
        loc: Location,
        with_attrs: bool,
    ) -> Result<Instruction> {
        self.enter()?;
        let declared = if self.starts_shape() {
            Some(self.shape()?)
        } else {
            None
        };
        let op_loc = self.loc();
        let op_name = self.word("an opcode")?;
        let opcode = Opcode::from_name(&op_name).ok_or_else(|| {
            Error::invalid("hlo.unknown_opcode", format!("unknown opcode `{op_name}`"))
                .at(&name, op_loc)
        })?;
        if declared.is_none() && opcode.requires_explicit_shape() {
            return Err(Error::invalid(
                "hlo.shape_required",
                format!("`{op_name}` needs its result shape written before the opcode"),
            )
            .at(&name, op_loc));
        }
        self.expect(Tok::LParen, "`(` after the opcode")?;
        let mut operands = vec![];
        let paren = match opcode {
            Opcode::Constant => {
                let shape = declared.clone().unwrap_or(Shape::Tuple(vec![]));
                let literal = self.literal_body(&shape)?;
                self.expect(Tok::RParen, "`)` closing the constant")?;
                Paren::Literal(literal)
            }
            Opcode::Parameter => {
                let n = self.int("the parameter number")?;
                if n < 0 {
                    return Err(Error::invalid(
                        "parameter.number",
                        format!("parameter number {n} is negative"),
                    )
                    .at(&name, op_loc));
                }
                self.expect(Tok::RParen, "`)` closing the parameter number")?;
                Paren::Number(n)
            }
            _ => {
                operands = comma_list(self, Tok::RParen, "`)` closing the operand list", |p| {
                    p.operand(scope)
                })?;
                Paren::Operands
            }
        };
        let mut attrs: Vec<RawAttr> = vec![];
        if with_attrs {
            while self.eat(&Tok::Comma) {
                let aloc = self.loc();
                let key = match self.next() {
                    Tok::Key(k) => k,
                    other => {
                        return Err(syntax(
                            format!("expected `attribute=value`, found {}", describe(&other)),
                            aloc,
                        ));
                    }
                };
                if attrs.iter().any(|a| a.key == key) {
                    return Err(Error::invalid(
                        "hlo.duplicate_attribute",
                        format!("attribute `{key}` is given twice"),
                    )
                    .at(&name, aloc));
                }
                let value = self.attr_value(&key).map_err(|e| e.at(&name, aloc))?;
                attrs.push(RawAttr {
                    key,
                    value,
                    loc: aloc,
                });
            }
        }
        self.leave();
        let mut d = Decoder::new(opcode.name(), attrs, paren, op_loc);
        let op = Op::decode(opcode, &mut d).map_err(|e| e.at(&name, op_loc))?;
        let extra = d.finish().map_err(|e| e.at(&name, op_loc))?;
        let shape_declared = declared.is_some();
        Ok(Instruction {
            name,
            op,
            shape: declared.unwrap_or(Shape::Tuple(vec![])),
            shape_declared,
            operands,
            extra,
            loc,
        })
    }

    /// An operand: `name`, `shape name`, or a nested anonymous instruction `[shape] opcode(...)`.
    fn operand(&mut self, scope: &mut Scope) -> Result<InstId> {
        let loc = self.loc();
        let declared = if self.starts_shape() {
            Some(self.shape()?)
        } else {
            None
        };
        let nloc = self.loc();
        let w = self.word("an operand name")?;
        if *self.peek() == Tok::LParen && Opcode::from_name(&w).is_some() {
            // Nested instruction: rewind to its shape and parse it as an anonymous instruction.
            self.anon += 1;
            let name = format!("{w}.anon{}", self.anon);
            let mut p = self.pos - 1;
            if declared.is_some() {
                // Re-parse from the shape so the nested instruction keeps its declared shape.
                while self.toks[p].loc != loc {
                    p -= 1;
                }
            }
            self.pos = p;
            let inst = self.instruction_rest(scope, name.clone(), loc, false)?;
            let id = scope.insts.len();
            scope.insts.push(inst);
            scope.names.insert(name, id);
            return Ok(id);
        }
        let id = *scope.names.get(&w).ok_or_else(|| {
            Error::invalid(
                "hlo.undefined_name",
                format!("operand `{w}` is not defined before this point in the computation"),
            )
            .at_location(nloc)
        })?;
        if let Some(s) = declared
            && scope.insts[id].shape_declared
            && !scope.insts[id].shape.compatible(&s)
        {
            return Err(Error::invalid(
                "hlo.operand_shape",
                format!(
                    "operand `{w}` is written as {s} but has shape {}",
                    scope.insts[id].shape
                ),
            )
            .at_location(nloc));
        }
        Ok(id)
    }
}
