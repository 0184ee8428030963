//! Recursive-descent parser for HLO modules, shapes and literals. It builds the `ast` form: names
//! resolved to indices, attributes decoded by their key into typed values. It checks syntax and
//! name binding only; shapes and op constraints are the verifier's job. Every failure is an
//! `InvalidProgram` error with rule `hlo.syntax` (or a more specific `hlo.*` rule) and a position.

use super::ast::*;
use super::lexer::{Tok, Token, is_identifier, tokenize};
use super::opcode::Opcode;
use crate::error::{Error, Location, Result};
use crate::literal::{Array, ArrayData, C64, C128, Literal, Scalar};
use crate::shape::{ArrayShape, Layout, Shape};
use crate::types::ElementType;
use std::collections::HashMap;

/// Nesting limit for shapes, literals, operands and inline computations, so that hostile input
/// cannot exhaust the stack.
pub const MAX_NESTING: usize = 64;
/// Highest rank accepted for an array shape.
pub const MAX_RANK: usize = 64;

pub fn parse_module(src: &str) -> Result<Module> {
    let mut p = Parser::new(src)?;
    p.module()
}

/// Parses a shape such as `f32[2,3]{0,1}`, `(s32[], token[])` or `f32[<=10]`.
pub fn parse_shape(src: &str) -> Result<Shape> {
    let mut p = Parser::new(src)?;
    let s = p.shape()?;
    p.expect_eof()?;
    Ok(s)
}

/// Parses a literal with its shape: `f32[2] {1, 2}`, `pred[] true`, `(f32[] 1, s32[2] {1, 2})`.
pub fn parse_literal(src: &str) -> Result<Literal> {
    let mut p = Parser::new(src)?;
    let l = p.literal_with_shape()?;
    p.expect_eof()?;
    Ok(l)
}

fn syntax(msg: impl Into<String>, loc: Location) -> Error {
    Error::invalid("hlo.syntax", msg).at_location(loc)
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
    comps: Vec<Computation>,
    comp_names: HashMap<String, CompId>,
    anon: usize,
}

/// Per-computation name table while its instructions are parsed.
struct Scope {
    insts: Vec<Instruction>,
    names: HashMap<String, InstId>,
    root: Option<InstId>,
}

impl Parser {
    fn new(src: &str) -> Result<Parser> {
        Ok(Parser {
            toks: tokenize(src)?,
            pos: 0,
            depth: 0,
            comps: vec![],
            comp_names: HashMap::new(),
            anon: 0,
        })
    }

    fn peek(&self) -> &Tok {
        &self.toks[self.pos.min(self.toks.len() - 1)].tok
    }
    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }
    fn loc(&self) -> Location {
        self.toks[self.pos.min(self.toks.len() - 1)].loc
    }
    fn next(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }
    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == t {
            self.next();
            true
        } else {
            false
        }
    }
    fn expect(&mut self, t: Tok, what: &str) -> Result<()> {
        if self.eat(&t) {
            Ok(())
        } else {
            Err(syntax(
                format!("expected {what}, found {}", describe(self.peek())),
                self.loc(),
            ))
        }
    }
    fn expect_eof(&mut self) -> Result<()> {
        if *self.peek() == Tok::Eof {
            Ok(())
        } else {
            Err(syntax(
                format!("unexpected {} after the end", describe(self.peek())),
                self.loc(),
            ))
        }
    }
    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(syntax(
                format!("nesting deeper than {MAX_NESTING} levels"),
                self.loc(),
            ));
        }
        Ok(())
    }
    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn word(&mut self, what: &str) -> Result<String> {
        match self.next() {
            Tok::Word(w) => Ok(w),
            other => {
                self.pos -= 1;
                Err(syntax(
                    format!("expected {what}, found {}", describe(&other)),
                    self.loc(),
                ))
            }
        }
    }

    fn int(&mut self, what: &str) -> Result<i64> {
        let loc = self.loc();
        let w = self.word(what)?;
        parse_i64(&w)
            .ok_or_else(|| syntax(format!("expected {what} (an integer), found {w:?}"), loc))
    }

    // ---------------------------------------------------------------- module and computations

    fn module(&mut self) -> Result<Module> {
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
        let (mut replica_count, mut num_partitions) = (None, None);
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
                _ => {
                    self.opaque_value()?;
                }
            }
        }
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
        })
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
            let mut params = vec![];
            if *self.peek() != Tok::RParen {
                loop {
                    match self.next() {
                        Tok::Name(_) => {}
                        other => {
                            return Err(syntax(
                                format!(
                                    "expected `name:` in the computation signature, found {}",
                                    describe(&other)
                                ),
                                self.loc(),
                            ));
                        }
                    }
                    params.push(self.shape()?);
                    if !self.eat(&Tok::Comma) {
                        break;
                    }
                }
            }
            self.expect(Tok::RParen, "`)`")?;
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
    fn computation_body(&mut self, name: String, loc: Location) -> Result<CompId> {
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

    // ---------------------------------------------------------------- instructions

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
        let mut literal = None;
        let mut parameter_number = None;
        match opcode {
            Opcode::Constant => {
                let shape = declared.clone().unwrap_or(Shape::Tuple(vec![]));
                literal = Some(self.literal_body(&shape)?);
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
                parameter_number = Some(n);
            }
            _ => {
                if *self.peek() != Tok::RParen {
                    loop {
                        operands.push(self.operand(scope)?);
                        if !self.eat(&Tok::Comma) {
                            break;
                        }
                    }
                }
            }
        }
        self.expect(Tok::RParen, "`)` closing the operand list")?;
        let mut attrs = Attrs::default();
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
                if attrs.has(&key) {
                    return Err(Error::invalid(
                        "hlo.duplicate_attribute",
                        format!("attribute `{key}` is given twice"),
                    )
                    .at(&name, aloc));
                }
                let value = self.attr_value(&key).map_err(|e| e.at(&name, aloc))?;
                attrs.0.push(Attr {
                    key,
                    value,
                    loc: aloc,
                });
            }
        }
        self.leave();
        let shape_declared = declared.is_some();
        Ok(Instruction {
            name,
            opcode,
            shape: declared.unwrap_or(Shape::Tuple(vec![])),
            shape_declared,
            operands,
            attrs,
            literal,
            parameter_number,
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

    // ---------------------------------------------------------------- shapes

    fn starts_shape(&self) -> bool {
        match self.peek() {
            Tok::LParen => true,
            Tok::Word(w) => {
                ElementType::from_name(w).is_some() && *self.peek_at(1) == Tok::LBracket
            }
            _ => false,
        }
    }

    fn shape(&mut self) -> Result<Shape> {
        self.enter()?;
        let loc = self.loc();
        let s = match self.next() {
            Tok::LParen => {
                let mut elems = vec![];
                if *self.peek() != Tok::RParen {
                    loop {
                        elems.push(self.shape()?);
                        if !self.eat(&Tok::Comma) {
                            break;
                        }
                    }
                }
                self.expect(Tok::RParen, "`)` closing the tuple shape")?;
                Shape::Tuple(elems)
            }
            Tok::Word(w) => {
                let ty = ElementType::from_name(&w).ok_or_else(|| {
                    Error::invalid(
                        "shape.element_type",
                        format!("`{w}` is not an element type xla-spec supports"),
                    )
                    .at_location(loc)
                })?;
                self.expect(Tok::LBracket, "`[` after the element type")?;
                let mut dims = vec![];
                let mut dynamic = vec![];
                if *self.peek() != Tok::RBracket {
                    loop {
                        let dloc = self.loc();
                        let bounded = self.eat(&Tok::Le);
                        if *self.peek() == Tok::Question {
                            return Err(Error::invalid("shape.unbounded_dynamic", "unbounded dynamic dimensions (`?`) are not supported; give a bound as `<=N`").at_location(dloc));
                        }
                        let d = self.int("a dimension size")?;
                        if d < 0 {
                            return Err(Error::invalid(
                                "shape.nonnegative_dims",
                                format!("dimension size {d} is negative"),
                            )
                            .at_location(dloc));
                        }
                        dims.push(d);
                        dynamic.push(bounded);
                        if dims.len() > MAX_RANK {
                            return Err(Error::invalid(
                                "shape.rank",
                                format!("rank above {MAX_RANK} is not supported"),
                            )
                            .at_location(dloc));
                        }
                        if !self.eat(&Tok::Comma) {
                            break;
                        }
                    }
                }
                self.expect(Tok::RBracket, "`]` closing the dimensions")?;
                if ty == ElementType::Token {
                    if !dims.is_empty() {
                        return Err(Error::invalid(
                            "shape.token",
                            "a token shape is written `token[]`",
                        )
                        .at_location(loc));
                    }
                    Shape::Token
                } else {
                    let mut a = ArrayShape {
                        ty,
                        dims,
                        dynamic,
                        layout: None,
                    };
                    // A layout follows the dimensions directly (`f32[2]{0}`); after a space,
                    // `{` opens a literal's value (`f32[2] {1, 0}`), which at rank 1 would
                    // otherwise read as a layout.
                    let adjacent = !self.toks[self.pos.min(self.toks.len() - 1)].space_before;
                    if *self.peek() == Tok::LBrace
                        && adjacent
                        && matches!(self.peek_at(1), Tok::Word(w) if parse_i64(w).is_some())
                            | matches!(self.peek_at(1), Tok::Colon | Tok::Name(_))
                    {
                        a.layout = Some(self.layout(&a)?);
                    }
                    Shape::Array(a)
                }
            }
            other => {
                return Err(syntax(
                    format!("expected a shape, found {}", describe(&other)),
                    loc,
                ));
            }
        };
        self.leave();
        Ok(s)
    }

    fn layout(&mut self, a: &ArrayShape) -> Result<Layout> {
        let loc = self.loc();
        self.expect(Tok::LBrace, "`{`")?;
        let mut m2m = vec![];
        let mut extended = false;
        loop {
            match self.next() {
                Tok::Word(w) => m2m.push(
                    parse_i64(&w).ok_or_else(|| syntax(format!("bad layout entry {w:?}"), loc))?,
                ),
                Tok::Name(w) => {
                    m2m.push(
                        parse_i64(&w)
                            .ok_or_else(|| syntax(format!("bad layout entry {w:?}"), loc))?,
                    );
                    extended = true;
                    break;
                }
                Tok::Colon => {
                    extended = true;
                    break;
                }
                Tok::RBrace => {
                    self.pos -= 1;
                    break;
                }
                other => {
                    return Err(syntax(
                        format!("bad layout: unexpected {}", describe(&other)),
                        loc,
                    ));
                }
            }
            if !self.eat(&Tok::Comma) {
                if self.eat(&Tok::Colon) {
                    extended = true;
                }
                break;
            }
        }
        if extended {
            // Tiling, memory space and other physical details: accepted and ignored.
            let mut depth = 0usize;
            loop {
                match self.next() {
                    Tok::LParen => depth += 1,
                    Tok::RParen => depth = depth.saturating_sub(1),
                    Tok::RBrace if depth == 0 => {
                        self.pos -= 1;
                        break;
                    }
                    Tok::Eof => return Err(syntax("unterminated layout", loc)),
                    _ => {}
                }
            }
        }
        self.expect(Tok::RBrace, "`}` closing the layout")?;
        let layout = Layout::new(m2m);
        layout.check(&a.dims).map_err(|e| e.at_location(loc))?;
        Ok(layout)
    }

    // ---------------------------------------------------------------- literals

    fn literal_with_shape(&mut self) -> Result<Literal> {
        self.enter()?;
        let l = if *self.peek() == Tok::LParen {
            self.next();
            let mut elems = vec![];
            if *self.peek() != Tok::RParen {
                loop {
                    elems.push(self.literal_with_shape()?);
                    if !self.eat(&Tok::Comma) {
                        break;
                    }
                }
            }
            self.expect(Tok::RParen, "`)` closing the tuple literal")?;
            Literal::Tuple(elems)
        } else {
            let shape = self.shape()?;
            match shape {
                Shape::Token => Literal::Token,
                Shape::Tuple(_) => {
                    return Err(syntax(
                        "a tuple literal is written `(shape value, ...)`",
                        self.loc(),
                    ));
                }
                s => self.literal_body(&s)?,
            }
        };
        self.leave();
        Ok(l)
    }

    /// The value part of a literal of a known shape (what `constant(...)` holds).
    fn literal_body(&mut self, shape: &Shape) -> Result<Literal> {
        self.enter()?;
        let loc = self.loc();
        let l = match shape {
            Shape::Token => return Err(syntax("a token has no literal value", loc)),
            Shape::Tuple(elems) => {
                // A tuple constant `((1, {2, 3}))`: element values without shapes.
                self.expect(Tok::LParen, "`(` opening the tuple value")?;
                let mut out = vec![];
                for (i, e) in elems.iter().enumerate() {
                    if i > 0 {
                        self.expect(Tok::Comma, "`,` between tuple elements")?;
                    }
                    out.push(self.literal_body(e)?);
                }
                self.expect(Tok::RParen, "`)` closing the tuple value")?;
                Literal::Tuple(out)
            }
            Shape::Array(a) => {
                if a.is_dynamic() {
                    return Err(Error::invalid(
                        "constant.static_shape",
                        "a constant must have a static shape",
                    )
                    .at_location(loc));
                }
                let n = a
                    .checked_element_count()
                    .filter(|&n| n <= (1 << 28))
                    .ok_or_else(|| {
                        Error::invalid(
                            "constant.size",
                            format!("constant of shape {a} is too large to write out"),
                        )
                        .at_location(loc)
                    })?;
                let mut data = ArrayData::zeros(a.ty, 0);
                let mut count = 0i64;
                if a.dims.is_empty() {
                    let s = self.scalar(a.ty)?;
                    data = ArrayData::splat(s, 1);
                    count = 1;
                } else {
                    let mut vals = Vec::with_capacity(n.min(1 << 20) as usize);
                    self.literal_level(a, 0, &mut vals)?;
                    if vals.len() as i64 == n {
                        let mut d = ArrayData::zeros(a.ty, vals.len());
                        for (i, v) in vals.into_iter().enumerate() {
                            d.set(i, v)?;
                        }
                        data = d;
                        count = n;
                    }
                }
                if count != n {
                    return Err(Error::invalid(
                        "constant.element_count",
                        format!("literal does not have the {n} elements of {a}"),
                    )
                    .at_location(loc));
                }
                let mut shape = a.clone();
                shape.layout = a.layout.clone();
                Literal::Array(Array { shape, data })
            }
        };
        self.leave();
        Ok(l)
    }

    fn literal_level(&mut self, a: &ArrayShape, dim: usize, out: &mut Vec<Scalar>) -> Result<()> {
        let loc = self.loc();
        self.expect(Tok::LBrace, "`{` opening an array level")?;
        let want = a.dims[dim];
        let mut got = 0i64;
        while *self.peek() != Tok::RBrace {
            if dim + 1 == a.dims.len() {
                out.push(self.scalar(a.ty)?);
            } else {
                self.literal_level(a, dim + 1, out)?;
            }
            got += 1;
            if got > want {
                return Err(Error::invalid(
                    "constant.element_count",
                    format!("dimension {dim} of {a} has {want} elements but the literal has more"),
                )
                .at_location(loc));
            }
            // Commas are optional between elements, as in XLA's parser.
            self.eat(&Tok::Comma);
        }
        self.next();
        if got != want {
            return Err(Error::invalid(
                "constant.element_count",
                format!("dimension {dim} of {a} has {want} elements but the literal has {got}"),
            )
            .at_location(loc));
        }
        Ok(())
    }

    fn scalar(&mut self, ty: ElementType) -> Result<Scalar> {
        let loc = self.loc();
        if ty.is_complex() {
            self.expect(Tok::LParen, "`(re, im)` for a complex value")?;
            // C64 parts are read as f32 directly: through f64 a decimal could round twice and
            // a NaN payload would be lost.
            if ty == ElementType::C64 {
                let re = self.f32_value()?;
                self.expect(Tok::Comma, "`,` between the real and imaginary parts")?;
                let im = self.f32_value()?;
                self.expect(Tok::RParen, "`)`")?;
                return Ok(Scalar::C64(C64::new(re, im)));
            }
            let re = self.float_value(ElementType::F64)?;
            self.expect(Tok::Comma, "`,` between the real and imaginary parts")?;
            let im = self.float_value(ElementType::F64)?;
            self.expect(Tok::RParen, "`)`")?;
            return Ok(Scalar::C128(C128::new(re, im)));
        }
        if ty.is_floating() {
            let w = self.peek().clone();
            return match ty {
                ElementType::F32 => Ok(Scalar::F32(self.f32_value()?)),
                _ => {
                    let x = self.float_value(ty)?;
                    let s = Scalar::from_f64(ty, x);
                    if x.is_finite() && s.as_f64().is_infinite() {
                        return Err(Error::invalid(
                            "constant.range",
                            format!("{} is out of range for {ty}", describe(&w)),
                        )
                        .at_location(loc));
                    }
                    Ok(s)
                }
            };
        }
        let w = self.word("a value")?;
        if ty == ElementType::Pred {
            return match w.as_str() {
                "true" => Ok(Scalar::Pred(true)),
                "false" => Ok(Scalar::Pred(false)),
                _ => parse_i128(&w)
                    .map(|v| Scalar::Pred(v != 0))
                    .ok_or_else(|| syntax(format!("expected true or false, found {w:?}"), loc)),
            };
        }
        let v = parse_i128(&w)
            .ok_or_else(|| syntax(format!("expected an integer, found {w:?}"), loc))?;
        Scalar::from_i128(ty, v).ok_or_else(|| {
            Error::invalid("constant.range", format!("{v} is out of range for {ty}"))
                .at_location(loc)
        })
    }

    /// An optional `(0x...)` NaN payload after `nan`: the whole mantissa, non-zero and within
    /// `mask`.
    fn nan_payload(&mut self, loc: Location, mask: u64) -> Result<Option<u64>> {
        if *self.peek() != Tok::LParen {
            return Ok(None);
        }
        self.next();
        let p = self.word("a NaN payload")?;
        let payload = p
            .strip_prefix("0x")
            .and_then(|h| u64::from_str_radix(h, 16).ok())
            .filter(|&v| v != 0 && v <= mask)
            .ok_or_else(|| syntax(format!("bad NaN payload {p:?}"), loc))?;
        self.expect(Tok::RParen, "`)`")?;
        Ok(Some(payload))
    }

    /// An f32 value. A NaN keeps its sign and payload bit for bit (an f32 signalling NaN does not
    /// survive a trip through f64 on every machine, so NaNs are built from their bits here).
    fn f32_value(&mut self) -> Result<f32> {
        let loc = self.loc();
        if let Tok::Word(w) = self.peek().clone() {
            let (neg, body) = match w.strip_prefix('-') {
                Some(b) => (true, b),
                None => (false, w.as_str()),
            };
            if body == "nan" {
                self.next();
                let mut bits = match self.nan_payload(loc, 0x7f_ffff)? {
                    Some(p) => 0x7f80_0000 | p as u32,
                    None => 0x7fc0_0000u32,
                };
                if neg {
                    bits |= 0x8000_0000;
                }
                return Ok(f32::from_bits(bits));
            }
        }
        Ok(self.float_value(ElementType::F32)? as f32)
    }

    /// A float value, returned as f64 except for F32, which is parsed directly (correctly rounded)
    /// and returned widened exactly.
    fn float_value(&mut self, ty: ElementType) -> Result<f64> {
        let loc = self.loc();
        let w = self.word("a number")?;
        let (neg, body) = match w.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, w.as_str()),
        };
        let sign = if neg { -1.0 } else { 1.0 };
        match body {
            "inf" => return Ok(sign * f64::INFINITY),
            "nan" => {
                // (f32 NaNs never get here: `f32_value` builds them from their bits.)
                let bits = match self.nan_payload(loc, 0xf_ffff_ffff_ffff)? {
                    Some(p) => 0x7ff0_0000_0000_0000 | p,
                    None => f64::NAN.to_bits(),
                };
                let x = f64::from_bits(bits);
                return Ok(if neg { -x } else { x });
            }
            _ => {}
        }
        if parse_i128(&w) == Some(0) {
            // XLA lexes `-0` as the integer zero, so a float written `-0` is +0; only `-0.0`
            // (or `-0e0`) is negative zero. We read the text as XLA does.
            return Ok(0.0);
        }
        if ty == ElementType::F32 {
            let x: f32 = w
                .parse()
                .map_err(|_| syntax(format!("expected a number, found {w:?}"), loc))?;
            if x.is_infinite() {
                return Err(Error::invalid(
                    "constant.range",
                    format!("{w} is out of range for f32"),
                )
                .at_location(loc));
            }
            return Ok(x as f64);
        }
        let x: f64 = w
            .parse()
            .map_err(|_| syntax(format!("expected a number, found {w:?}"), loc))?;
        if x.is_infinite() {
            return Err(
                Error::invalid("constant.range", format!("{w} is out of range for f64"))
                    .at_location(loc),
            );
        }
        Ok(x)
    }

    // ---------------------------------------------------------------- attribute values

    fn attr_value(&mut self, key: &str) -> Result<AttrValue> {
        let loc = self.loc();
        Ok(match key {
            "index"
            | "iota_dimension"
            | "feature_index"
            | "exponent_bits"
            | "mantissa_bits"
            | "feature_group_count"
            | "batch_group_count"
            | "index_vector_dim"
            | "channel_id"
            | "k"
            | "delta"
            | "inferred_dimension" => AttrValue::Int(self.int(key)?),
            "is_stable"
            | "indices_are_sorted"
            | "unique_indices"
            | "largest"
            | "left_side"
            | "lower"
            | "unit_diagonal"
            | "use_global_device_ids"
            | "constrain_layout"
            | "is_host_transfer"
            | "custom_call_has_side_effect"
            | "is_composite" => {
                let w = self.word("true or false")?;
                match w.as_str() {
                    "true" => AttrValue::Bool(true),
                    "false" => AttrValue::Bool(false),
                    _ => {
                        return Err(syntax(
                            format!("`{key}` takes true or false, not {w:?}"),
                            loc,
                        ));
                    }
                }
            }
            "epsilon" => AttrValue::Float(self.float_value(ElementType::F64)?),
            "dimensions"
            | "dynamic_slice_sizes"
            | "slice_sizes"
            | "offset_dims"
            | "collapsed_slice_dims"
            | "start_index_map"
            | "operand_batching_dims"
            | "start_indices_batching_dims"
            | "update_window_dims"
            | "inserted_window_dims"
            | "scatter_dims_to_operand_dims"
            | "input_batching_dims"
            | "scatter_indices_batching_dims"
            | "lhs_batch_dims"
            | "lhs_contracting_dims"
            | "rhs_batch_dims"
            | "rhs_contracting_dims"
            | "fft_length" => AttrValue::Ints(self.int_list()?),
            "source_target_pairs" => AttrValue::IntLists(self.int_list_list()?),
            "replica_groups" => AttrValue::IntLists(self.replica_groups()?),
            "to_apply" | "condition" | "body" | "true_computation" | "false_computation"
            | "select" | "scatter" | "calls" => AttrValue::Comp(self.computation_ref()?),
            "branch_computations" | "called_computations" => {
                self.expect(Tok::LBrace, "`{` opening the computation list")?;
                let mut v = vec![];
                if *self.peek() != Tok::RBrace {
                    loop {
                        v.push(self.computation_ref()?);
                        if !self.eat(&Tok::Comma) {
                            break;
                        }
                    }
                }
                self.expect(Tok::RBrace, "`}`")?;
                AttrValue::Comps(v)
            }
            "slice" => AttrValue::Slice(self.slice_ranges()?),
            "padding" => AttrValue::Padding(self.padding()?),
            "window" => AttrValue::Window(self.window()?),
            "dim_labels" => {
                let w = self.word("dimension labels such as b01f_01io->b01f")?;
                AttrValue::ConvDims(
                    parse_dim_labels(&w).map_err(|m| {
                        Error::invalid("convolution.dim_labels", m).at_location(loc)
                    })?,
                )
            }
            "direction" | "type" | "fft_type" | "distribution" | "algorithm" | "transpose_a"
            | "api_version" | "schedule" | "kind" => AttrValue::Enum(self.word(key)?),
            "custom_call_target" | "infeed_config" | "outfeed_config" => match self.next() {
                Tok::Str(s) => AttrValue::Str(s),
                other => {
                    return Err(syntax(
                        format!("`{key}` takes a string, found {}", describe(&other)),
                        loc,
                    ));
                }
            },
            "backend_config" => match self.peek().clone() {
                Tok::Str(s) => {
                    self.next();
                    AttrValue::Str(s)
                }
                _ => AttrValue::Opaque(self.opaque_value()?),
            },
            "outfeed_shape" => AttrValue::Shape(self.shape()?),
            "literal" => AttrValue::Literal(self.literal_with_shape()?),
            _ => AttrValue::Opaque(self.opaque_value()?),
        })
    }

    fn computation_ref(&mut self) -> Result<CompId> {
        let loc = self.loc();
        if *self.peek() == Tok::LBrace {
            self.anon += 1;
            let name = format!("_inline{}", self.anon);
            return self.computation_body(name, loc);
        }
        let w = self.word("a computation name")?;
        self.comp_names.get(&w).copied().ok_or_else(|| {
            Error::invalid(
                "hlo.undefined_computation",
                format!("computation `{w}` is not defined before its use (sub-computations come first, and a computation cannot call itself)"),
            )
            .at_location(loc)
        })
    }

    fn int_list(&mut self) -> Result<Vec<i64>> {
        self.expect(Tok::LBrace, "`{` opening an integer list")?;
        let mut v = vec![];
        if *self.peek() != Tok::RBrace {
            loop {
                v.push(self.int("an integer")?);
                if v.len() > 1 << 16 {
                    return Err(syntax("integer list too long", self.loc()));
                }
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RBrace, "`}` closing the integer list")?;
        Ok(v)
    }

    fn int_list_list(&mut self) -> Result<Vec<Vec<i64>>> {
        self.expect(Tok::LBrace, "`{` opening a list of lists")?;
        let mut v = vec![];
        if *self.peek() != Tok::RBrace {
            loop {
                v.push(self.int_list()?);
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RBrace, "`}`")?;
        Ok(v)
    }

    /// `{{0,1},{2,3}}`, `{}`, or the iota form `[G,S]<=[d0,d1,...]` with an optional `T(perm)`.
    fn replica_groups(&mut self) -> Result<Vec<Vec<i64>>> {
        if *self.peek() == Tok::LBrace {
            return self.int_list_list();
        }
        let loc = self.loc();
        let bracket = |p: &mut Parser| -> Result<Vec<i64>> {
            p.expect(Tok::LBracket, "`[`")?;
            let mut v = vec![];
            loop {
                v.push(p.int("an integer")?);
                if !p.eat(&Tok::Comma) {
                    break;
                }
            }
            p.expect(Tok::RBracket, "`]`")?;
            Ok(v)
        };
        let gs = bracket(self)?;
        self.expect(Tok::Le, "`<=` in iota replica groups")?;
        let dims = bracket(self)?;
        let mut perm: Vec<i64> = (0..dims.len() as i64).collect();
        if matches!(self.peek(), Tok::Word(w) if w == "T") {
            self.next();
            self.expect(Tok::LParen, "`(`")?;
            perm.clear();
            loop {
                perm.push(self.int("an integer")?);
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "`)`")?;
        }
        let bad =
            |m: &str| Error::invalid("collective.replica_groups", m.to_string()).at_location(loc);
        if gs.len() != 2 || gs.iter().any(|&x| x <= 0) || dims.iter().any(|&x| x <= 0) {
            return Err(bad("iota replica groups are written [groups,size]<=[dims]"));
        }
        let total: i64 = dims
            .iter()
            .try_fold(1i64, |a, &d| a.checked_mul(d))
            .filter(|&t| t <= 1 << 16)
            .ok_or_else(|| bad("too many devices"))?;
        if gs[0].checked_mul(gs[1]) != Some(total) {
            return Err(bad("groups x size must equal the number of devices"));
        }
        let mut sorted = perm.clone();
        sorted.sort();
        if perm.len() != dims.len() || sorted.iter().enumerate().any(|(i, &p)| p != i as i64) {
            return Err(bad(
                "T(...) must be a permutation of the reshape dimensions",
            ));
        }
        // Transpose iota(dims) by perm, flatten, and cut into groups.
        let tdims: Vec<i64> = perm.iter().map(|&p| dims[p as usize]).collect();
        let src_strides = crate::shape::row_major_strides(&dims);
        let mut flat = Vec::with_capacity(total as usize);
        let tstr = crate::shape::row_major_strides(&tdims);
        for k in 0..total as usize {
            let mut rem = k;
            let mut src = 0usize;
            for (j, &s) in tstr.iter().enumerate() {
                let i = rem / s;
                rem %= s;
                src += i * src_strides[perm[j] as usize];
            }
            flat.push(src as i64);
        }
        Ok(flat.chunks(gs[1] as usize).map(|c| c.to_vec()).collect())
    }

    /// `{[start:limit], [start:limit:stride], ...}`. The lexer reads `0:` as a name token, so both
    /// forms are accepted for the numbers before a colon.
    fn slice_ranges(&mut self) -> Result<Vec<SliceDim>> {
        self.expect(Tok::LBrace, "`{` opening the slice ranges")?;
        let mut v = vec![];
        if *self.peek() != Tok::RBrace {
            loop {
                let loc = self.loc();
                self.expect(Tok::LBracket, "`[start:limit]`")?;
                let mut nums = vec![];
                loop {
                    match self.next() {
                        Tok::Name(w) => nums.push(
                            parse_i64(&w)
                                .ok_or_else(|| syntax(format!("bad slice bound {w:?}"), loc))?,
                        ),
                        Tok::Word(w) => nums.push(
                            parse_i64(&w)
                                .ok_or_else(|| syntax(format!("bad slice bound {w:?}"), loc))?,
                        ),
                        Tok::Colon => continue,
                        Tok::RBracket => break,
                        other => {
                            return Err(syntax(
                                format!("bad slice range: unexpected {}", describe(&other)),
                                loc,
                            ));
                        }
                    }
                    if nums.len() > 3 {
                        return Err(syntax(
                            "a slice range is [start:limit] or [start:limit:stride]",
                            loc,
                        ));
                    }
                }
                let d = match nums[..] {
                    [s, l] => SliceDim {
                        start: s,
                        limit: l,
                        stride: 1,
                    },
                    [s, l, st] => SliceDim {
                        start: s,
                        limit: l,
                        stride: st,
                    },
                    _ => {
                        return Err(syntax(
                            "a slice range is [start:limit] or [start:limit:stride]",
                            loc,
                        ));
                    }
                };
                v.push(d);
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RBrace, "`}` closing the slice ranges")?;
        Ok(v)
    }

    fn padding(&mut self) -> Result<Vec<PadDim>> {
        let loc = self.loc();
        let w = self.word("a padding such as 0_1x1_2_1")?;
        let mut v = vec![];
        for part in w.split('x') {
            let nums: Vec<i64> = part
                .split('_')
                .map(parse_i64)
                .collect::<Option<_>>()
                .ok_or_else(|| {
                    syntax(
                        format!("bad padding {w:?}: each dimension is lo_hi or lo_hi_interior"),
                        loc,
                    )
                })?;
            v.push(match nums[..] {
                [lo, hi] => PadDim {
                    lo,
                    hi,
                    interior: 0,
                },
                [lo, hi, interior] => PadDim { lo, hi, interior },
                _ => {
                    return Err(syntax(
                        format!("bad padding {w:?}: each dimension is lo_hi or lo_hi_interior"),
                        loc,
                    ));
                }
            });
        }
        Ok(v)
    }

    fn window(&mut self) -> Result<Window> {
        let loc = self.loc();
        self.expect(Tok::LBrace, "`{` opening the window")?;
        let mut fields: HashMap<String, String> = HashMap::new();
        while *self.peek() != Tok::RBrace {
            let floc = self.loc();
            let key = match self.next() {
                Tok::Key(k) => k,
                other => {
                    return Err(syntax(
                        format!(
                            "expected a window field such as size=, found {}",
                            describe(&other)
                        ),
                        floc,
                    ));
                }
            };
            let val = self.word(&key)?;
            if fields.insert(key.clone(), val).is_some() {
                return Err(syntax(format!("window field `{key}` is given twice"), floc));
            }
        }
        self.next();
        let size = fields
            .remove("size")
            .ok_or_else(|| syntax("a window needs size=", loc))?;
        let sizes = split_x(&size, loc)?;
        let n = sizes.len();
        let mut dims: Vec<WindowDim> = sizes.iter().map(|&s| WindowDim::of_size(s)).collect();
        for (key, val) in fields {
            match key.as_str() {
                "stride" | "lhs_dilate" | "rhs_dilate" | "rhs_reversal" => {
                    let v = split_x(&val, loc)?;
                    if v.len() != n {
                        return Err(syntax(
                            format!("window `{key}` has {} entries but size has {n}", v.len()),
                            loc,
                        ));
                    }
                    for (d, x) in dims.iter_mut().zip(v) {
                        match key.as_str() {
                            "stride" => d.stride = x,
                            "lhs_dilate" => d.lhs_dilate = x,
                            "rhs_dilate" => d.rhs_dilate = x,
                            _ => d.reversal = x != 0,
                        }
                    }
                }
                "pad" => {
                    let parts: Vec<&str> = val.split('x').collect();
                    if parts.len() != n {
                        return Err(syntax(
                            format!("window pad has {} entries but size has {n}", parts.len()),
                            loc,
                        ));
                    }
                    for (d, p) in dims.iter_mut().zip(parts) {
                        let nums: Vec<i64> = p
                            .split('_')
                            .map(parse_i64)
                            .collect::<Option<_>>()
                            .unwrap_or_default();
                        if nums.len() != 2 {
                            return Err(syntax(
                                format!("bad window pad {val:?}: each dimension is lo_hi"),
                                loc,
                            ));
                        }
                        d.pad_lo = nums[0];
                        d.pad_hi = nums[1];
                    }
                }
                other => return Err(syntax(format!("unknown window field `{other}`"), loc)),
            }
        }
        Ok(Window { dims })
    }

    /// Skips an attribute value xla-spec does not interpret and returns its text: a balanced
    /// `{...}` group, a string, or one word.
    fn opaque_value(&mut self) -> Result<String> {
        let loc = self.loc();
        let mut out = String::new();
        let mut depth = 0usize;
        loop {
            let t = self.next();
            match &t {
                Tok::Eof => return Err(syntax("unterminated attribute value", loc)),
                Tok::LBrace | Tok::LParen | Tok::LBracket => depth += 1,
                Tok::RBrace | Tok::RParen | Tok::RBracket => {
                    if depth == 0 {
                        return Err(syntax(format!("unexpected {}", describe(&t)), loc));
                    }
                    depth -= 1
                }
                _ => {}
            }
            if !out.is_empty() && self.toks[self.pos.saturating_sub(1)].space_before {
                out.push(' ');
            }
            out.push_str(&tok_text(&t));
            if depth == 0 {
                return Ok(out);
            }
            if depth > MAX_NESTING {
                return Err(syntax("attribute value nests too deeply", loc));
            }
        }
    }
}

fn split_x(s: &str, loc: Location) -> Result<Vec<i64>> {
    s.split('x')
        .map(|p| parse_i64(p).ok_or_else(|| syntax(format!("bad window value {s:?}"), loc)))
        .collect()
}

pub(crate) fn parse_i64(w: &str) -> Option<i64> {
    if w.is_empty()
        || !w
            .trim_start_matches('-')
            .bytes()
            .all(|c| c.is_ascii_digit())
    {
        return None;
    }
    w.parse().ok()
}

fn parse_i128(w: &str) -> Option<i128> {
    if w.is_empty()
        || !w
            .trim_start_matches('-')
            .bytes()
            .all(|c| c.is_ascii_digit())
    {
        return None;
    }
    w.parse().ok()
}

/// Decodes `b01f_01io->b01f`: the position of each letter or digit is the dimension number in that
/// operand.
pub fn parse_dim_labels(s: &str) -> std::result::Result<ConvDims, String> {
    let err =
        || format!("bad dim_labels {s:?}: expected <lhs>_<rhs>-><out> such as b01f_01io->b01f");
    let (lr, out) = s.split_once("->").ok_or_else(err)?;
    let (lhs, rhs) = lr.split_once('_').ok_or_else(err)?;
    fn decode(labels: &str, a: char, b: char) -> Option<(usize, usize, Vec<usize>)> {
        let (mut pa, mut pb) = (None, None);
        let mut spatial: Vec<Option<usize>> = vec![None; labels.len()];
        for (i, c) in labels.chars().enumerate() {
            if c == a && pa.is_none() {
                pa = Some(i);
            } else if c == b && pb.is_none() {
                pb = Some(i);
            } else if let Some(d) = c.to_digit(10) {
                let d = d as usize;
                if d >= spatial.len() || spatial[d].is_some() {
                    return None;
                }
                spatial[d] = Some(i);
            } else {
                return None;
            }
        }
        let n = labels.len().checked_sub(2)?;
        let sp: Option<Vec<usize>> = spatial[..n].iter().copied().collect();
        if spatial[n..].iter().any(|x| x.is_some()) {
            return None;
        }
        Some((pa?, pb?, sp?))
    }
    let (ib, i_f, isp) = decode(lhs, 'b', 'f').ok_or_else(err)?;
    let (ki, ko, ksp) = decode(rhs, 'i', 'o').ok_or_else(err)?;
    let (ob, of, osp) = decode(out, 'b', 'f').ok_or_else(err)?;
    if isp.len() != ksp.len() || isp.len() != osp.len() {
        return Err(format!(
            "dim_labels {s:?}: lhs, rhs and output must have the same number of spatial dimensions"
        ));
    }
    Ok(ConvDims {
        input_batch: ib,
        input_feature: i_f,
        input_spatial: isp,
        kernel_input_feature: ki,
        kernel_output_feature: ko,
        kernel_spatial: ksp,
        output_batch: ob,
        output_feature: of,
        output_spatial: osp,
    })
}

fn tok_text(t: &Tok) -> String {
    match t {
        Tok::Word(w) => w.clone(),
        Tok::Name(w) => format!("{w}:"),
        Tok::Key(w) => format!("{w}="),
        Tok::Str(s) => format!("{s:?}"),
        Tok::LBrace => "{".into(),
        Tok::RBrace => "}".into(),
        Tok::LBracket => "[".into(),
        Tok::RBracket => "]".into(),
        Tok::LParen => "(".into(),
        Tok::RParen => ")".into(),
        Tok::Comma => ",".into(),
        Tok::Colon => ":".into(),
        Tok::Equals => "=".into(),
        Tok::Arrow => "->".into(),
        Tok::Le => "<=".into(),
        Tok::Question => "?".into(),
        Tok::Eof => String::new(),
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Eof => "the end of the text".into(),
        Tok::Word(w) => format!("`{w}`"),
        other => format!("`{}`", tok_text(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_reference_while_example() {
        let m = parse_module(
            "HloModule control\n\ncond {\n  s = (s32[], f32[4]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  n = s32[] constant(10)\n  ROOT lt = pred[] compare(i, n), direction=LT\n}\n\nbody {\n  s = (s32[], f32[4]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  x = f32[4] get-tuple-element(s), index=1\n  one = s32[] constant(1)\n  i1 = s32[] add(i, one)\n  x1 = f32[4] add(x, x)\n  ROOT t = (s32[], f32[4]) tuple(i1, x1)\n}\n\nENTRY main {\n  x = f32[4] parameter(0)\n  zero = s32[] constant(0)\n  init = (s32[], f32[4]) tuple(zero, x)\n  w = (s32[], f32[4]) while(init), condition=cond, body=body\n  ROOT wx = f32[4] get-tuple-element(w), index=1\n}\n",
        )
        .unwrap();
        assert_eq!(m.computations.len(), 3);
        assert_eq!(m.entry, 2);
        let w = &m.entry().instructions[3];
        assert_eq!(w.attrs.comp("condition"), Some(0));
        assert_eq!(w.attrs.comp("body"), Some(1));
    }

    #[test]
    fn parses_attribute_forms() {
        let m = parse_module(
            "HloModule m\nENTRY e {\n p = f32[4,6] parameter(0)\n s = f32[1,2] slice(p), slice={[0:1], [0:6:3]}\n z = f32[] constant(0)\n q = f32[5,13] pad(p, z), padding=0_1x1_2_1\n r = f32[2,3] reduce-window(p, z), window={size=2x2 stride=2x2 pad=0_0x-1_1}, to_apply={ a = f32[] parameter(0) b = f32[] parameter(1) ROOT c = f32[] add(a, b) }\n}\n",
        )
        .unwrap();
        let e = m.entry();
        assert_eq!(
            e.instructions[1].attrs.slice().unwrap()[1],
            SliceDim {
                start: 0,
                limit: 6,
                stride: 3
            }
        );
        assert_eq!(
            e.instructions[3].attrs.padding().unwrap()[1],
            PadDim {
                lo: 1,
                hi: 2,
                interior: 1
            }
        );
        assert_eq!(e.instructions[4].attrs.window().unwrap().dims[1].pad_lo, -1);
        assert_eq!(m.computations.len(), 2);
    }

    #[test]
    fn iota_replica_groups_and_dim_labels() {
        let mut p = Parser::new("[3,2]<=[2,3]T(1,0)").unwrap();
        assert_eq!(
            p.replica_groups().unwrap(),
            vec![vec![0, 3], vec![1, 4], vec![2, 5]]
        );
        let d = parse_dim_labels("b01f_01io->b01f").unwrap();
        assert_eq!(
            (d.input_batch, d.input_feature, d.input_spatial.clone()),
            (0, 3, vec![1, 2])
        );
        assert_eq!((d.kernel_input_feature, d.kernel_output_feature), (2, 3));
        assert!(parse_dim_labels("bf01_oi01->bf0").is_err());
    }

    #[test]
    fn literals_and_errors() {
        let l = parse_literal("f32[2,2] {{1, -0.0}, {nan, -inf}}").unwrap();
        let a = l.as_array().unwrap();
        assert!(a.data.get(1).as_f64().is_sign_negative());
        // `-0` is the integer zero, hence +0, as in XLA.
        let l = parse_literal("f64[2] {-0, -0e0}").unwrap();
        let a = l.as_array().unwrap();
        assert!(a.data.get(0).as_f64().is_sign_positive());
        assert!(a.data.get(1).as_f64().is_sign_negative());
        // A `{` after whitespace opens the value; one right after `]` is a layout.
        assert_eq!(
            parse_literal("s32[2] {1, 0}").unwrap().to_string(),
            "s32[2] {1, 0}"
        );
        assert_eq!(
            parse_literal("s32[2]{0} {1, 0}").unwrap().to_string(),
            "s32[2]{0} {1, 0}"
        );
        let l = parse_literal("f32[] -nan(0x7f)").unwrap();
        match l.scalar_value() {
            Some(Scalar::F32(x)) => assert_eq!(x.to_bits(), 0xff80_007f),
            other => panic!("{other:?}"),
        }
        assert!(parse_literal("f32[2] {1}").is_err());
        assert!(parse_literal("u8[1] {256}").is_err());
        assert!(parse_literal("f16[] 1e10").is_err());
        let e = parse_module("HloModule m\nENTRY e {\n x = f32[] parametr(0)\n}").unwrap_err();
        assert_eq!(e.rule.as_deref(), Some("hlo.unknown_opcode"));
        assert_eq!(e.location.map(|l| l.line), Some(3));
        let e = parse_module("HloModule m\nENTRY e {\n x = f32[] add(y, y)\n}").unwrap_err();
        assert_eq!(e.rule.as_deref(), Some("hlo.undefined_name"));
        let deep = format!(
            "HloModule m\nENTRY e {{ x = {}f32[]{} parameter(0) }}",
            "(".repeat(500),
            ")".repeat(500)
        );
        assert!(parse_module(&deep).is_err());
    }

    #[test]
    fn nan_payloads_and_rank1_values_round_trip() {
        // Signalling and quiet NaNs with payloads, in f32 and in c64 parts, keep their bits.
        for bits in [0x7fa8_cb7fu32, 0xffc0_0001, 0x7fc0_0000, 0x7f80_0001] {
            let l = Literal::vec(vec![1], vec![f32::from_bits(bits)]).unwrap();
            let back = parse_literal(&l.to_string()).unwrap();
            let x = back.as_array().unwrap().typed::<f32>().unwrap()[0];
            assert_eq!(x.to_bits(), bits, "{l}");
            let c = Literal::vec(vec![1], vec![C64::new(1.0, f32::from_bits(bits))]).unwrap();
            let back = parse_literal(&c.to_string()).unwrap();
            let y = back.as_array().unwrap().typed::<C64>().unwrap()[0];
            assert_eq!(y.im.to_bits(), bits, "{c}");
        }
        // After a space, `{` opens the value even where a layout would fit.
        let l = parse_literal("f32[2] {1, 0}").unwrap();
        assert_eq!(l.to_string(), "f32[2] {1, 0}");
        let l = parse_literal("f32[2]{0} {1, 0}").unwrap();
        assert_eq!(l.to_string(), "f32[2]{0} {1, 0}");
    }
}
