//! Shape text: `f32[2,3]{0,1}`, `(s32[], token[])`, `f32[<=10]`, as the HLO text format writes
//! shapes (the book's "Shapes and layout" chapter). Modules, literals and JSON cases all read
//! shapes through this one parser.

use super::{ArrayShape, Layout, Shape};
use crate::error::{Error, Result};
use crate::syntax::{Cursor, Tok, comma_list, describe, parse_i64, syntax, tok_text};
use crate::types::ElementType;

/// Highest rank accepted for an array shape.
pub const MAX_RANK: usize = 64;

/// Parses a shape such as `f32[2,3]{0,1}`, `(s32[], token[])` or `f32[<=10]`.
pub fn parse_shape(src: &str) -> Result<Shape> {
    let mut c = Cursor::new(src)?;
    let s = c.shape()?;
    c.expect_eof()?;
    Ok(s)
}

impl Cursor {
    pub fn starts_shape(&self) -> bool {
        match self.peek() {
            Tok::LParen => true,
            Tok::Word(w) => {
                ElementType::from_name(w).is_some() && *self.peek_at(1) == Tok::LBracket
            }
            _ => false,
        }
    }

    pub fn shape(&mut self) -> Result<Shape> {
        self.enter()?;
        let loc = self.loc();
        let s = match self.next() {
            Tok::LParen => Shape::Tuple(comma_list(
                self,
                Tok::RParen,
                "`)` closing the tuple shape",
                |c| c.shape(),
            )?),
            Tok::Word(w) => {
                let ty = ElementType::from_name(&w).ok_or_else(|| {
                    Error::invalid(
                        "shape.element_type",
                        format!("`{w}` is not an element type xla-spec supports"),
                    )
                    .at_location(loc)
                })?;
                self.expect(Tok::LBracket, "`[` after the element type")?;
                let sizes = comma_list(self, Tok::RBracket, "`]` closing the dimensions", |c| {
                    let dloc = c.loc();
                    let bounded = c.eat(&Tok::Le);
                    if *c.peek() == Tok::Question {
                        return Err(Error::invalid("shape.unbounded_dynamic", "unbounded dynamic dimensions (`?`) are not supported; give a bound as `<=N`").at_location(dloc));
                    }
                    let d = c.int("a dimension size")?;
                    if d < 0 {
                        return Err(Error::invalid(
                            "shape.nonnegative_dims",
                            format!("dimension size {d} is negative"),
                        )
                        .at_location(dloc));
                    }
                    Ok((d, bounded))
                })?;
                if sizes.len() > MAX_RANK {
                    return Err(Error::invalid(
                        "shape.rank",
                        format!("rank above {MAX_RANK} is not supported"),
                    )
                    .at_location(loc));
                }
                let (dims, dynamic): (Vec<i64>, Vec<bool>) = sizes.into_iter().unzip();
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
                    let adjacent = !self.space_before();
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
        let mut physical = String::new();
        if extended {
            // Tiling, memory space and other physical details: kept as written (see `Layout`).
            let mut depth = 0usize;
            loop {
                let t = self.next();
                match &t {
                    Tok::LParen => depth += 1,
                    Tok::RParen => depth = depth.saturating_sub(1),
                    Tok::RBrace if depth == 0 => {
                        self.pos -= 1;
                        break;
                    }
                    Tok::Eof => return Err(syntax("unterminated layout", loc)),
                    _ => {}
                }
                physical.push_str(&tok_text(&t));
            }
        }
        self.expect(Tok::RBrace, "`}` closing the layout")?;
        let mut layout = Layout::new(m2m);
        layout.physical = (!physical.is_empty()).then_some(physical);
        layout.check(&a.dims).map_err(|e| e.at_location(loc))?;
        Ok(layout)
    }
}
