//! Text below the HLO level: the lexer, and a cursor over its tokens that the shape, literal and
//! module parsers share. Every syntax error is an `InvalidProgram` error with rule `hlo.syntax`
//! (or a more specific rule) and a position.

pub mod lexer;

pub use lexer::{Tok, Token, is_identifier, tokenize};

use crate::error::{Error, Location, Result};

/// Nesting limit for shapes, literals, operands and inline computations, so that hostile input
/// cannot exhaust the stack.
pub const MAX_NESTING: usize = 64;

pub fn syntax(msg: impl Into<String>, loc: Location) -> Error {
    Error::invalid("hlo.syntax", msg).at_location(loc)
}

/// A position in a token stream, with the nesting depth of what is being parsed.
pub struct Cursor {
    pub toks: Vec<Token>,
    pub pos: usize,
    depth: usize,
}

/// Parsers that walk a `Cursor` (the cursor itself, and the module parser that wraps one).
pub trait AsCursor {
    fn cursor(&mut self) -> &mut Cursor;
}

impl AsCursor for Cursor {
    fn cursor(&mut self) -> &mut Cursor {
        self
    }
}

/// Items separated by commas up to the closing token `close`, which is consumed; the list may be
/// empty. `what` names the closing token in errors. This is the one comma-list loop of the parsers.
pub fn comma_list<P: AsCursor, T>(
    p: &mut P,
    close: Tok,
    what: &str,
    mut item: impl FnMut(&mut P) -> Result<T>,
) -> Result<Vec<T>> {
    let mut v = vec![];
    if *p.cursor().peek() != close {
        loop {
            v.push(item(p)?);
            if !p.cursor().eat(&Tok::Comma) {
                break;
            }
        }
    }
    p.cursor().expect(close, what)?;
    Ok(v)
}

impl Cursor {
    pub fn new(src: &str) -> Result<Cursor> {
        Ok(Cursor {
            toks: tokenize(src)?,
            pos: 0,
            depth: 0,
        })
    }

    /// Whether whitespace or a comment precedes the current token.
    pub fn space_before(&self) -> bool {
        self.toks[self.pos.min(self.toks.len() - 1)].space_before
    }

    pub fn peek(&self) -> &Tok {
        &self.toks[self.pos.min(self.toks.len() - 1)].tok
    }
    pub fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }
    pub fn loc(&self) -> Location {
        self.toks[self.pos.min(self.toks.len() - 1)].loc
    }
    // Not an `Iterator`: the cursor never ends (it stays on the end-of-input token).
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }
    pub fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == t {
            self.next();
            true
        } else {
            false
        }
    }
    pub fn expect(&mut self, t: Tok, what: &str) -> Result<()> {
        if self.eat(&t) {
            Ok(())
        } else {
            Err(syntax(
                format!("expected {what}, found {}", describe(self.peek())),
                self.loc(),
            ))
        }
    }
    pub fn expect_eof(&mut self) -> Result<()> {
        if *self.peek() == Tok::Eof {
            Ok(())
        } else {
            Err(syntax(
                format!("unexpected {} after the end", describe(self.peek())),
                self.loc(),
            ))
        }
    }
    pub fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(syntax(
                format!("nesting deeper than {MAX_NESTING} levels"),
                self.loc(),
            ));
        }
        Ok(())
    }
    pub fn leave(&mut self) {
        self.depth -= 1;
    }

    pub fn word(&mut self, what: &str) -> Result<String> {
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

    pub fn int(&mut self, what: &str) -> Result<i64> {
        let loc = self.loc();
        let w = self.word(what)?;
        parse_i64(&w)
            .ok_or_else(|| syntax(format!("expected {what} (an integer), found {w:?}"), loc))
    }
}

/// A decimal integer word (digits, optionally after `-`): the HLO spelling, stricter than Rust's
/// `parse`, which would also take a leading `+`.
fn parse_decimal<T: std::str::FromStr>(w: &str) -> Option<T> {
    let digits = w.strip_prefix('-').unwrap_or(w);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    w.parse().ok()
}

pub fn parse_i64(w: &str) -> Option<i64> {
    parse_decimal(w)
}

pub fn parse_i128(w: &str) -> Option<i128> {
    parse_decimal(w)
}

pub fn tok_text(t: &Tok) -> String {
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

pub fn describe(t: &Tok) -> String {
    match t {
        Tok::Eof => "the end of the text".into(),
        Tok::Word(w) => format!("`{w}`"),
        other => format!("`{}`", tok_text(other)),
    }
}
