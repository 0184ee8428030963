//! The HLO text lexer. It follows XLA's lexical rules (see the book's "HLO text" chapter):
//! identifiers are `[a-zA-Z_][a-zA-Z0-9_.-]*`, a word directly followed by `:` is a *name* and one
//! directly followed by `=` is an *attribute key*; `%` before a name is optional; `//` and `/* */`
//! are comments. Words that are neither identifiers nor numbers (`2x2`, `0_1x1_2_1`,
//! `b01f_01io->b01f`) lex as `Word` and are decoded by the attribute that expects them.

use crate::error::{Error, Location, Result};

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// An identifier or a pattern word (`f32`, `add.1`, `2x2`, `1_2`, `b01f_01io->b01f`, `1.5`,
    /// `-inf`). Numbers also lex as words; the parser decides by context.
    Word(String),
    /// `name:` (no space before the colon).
    Name(String),
    /// `key=` (no space before the equals sign).
    Key(String),
    Str(String),
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    LParen,
    RParen,
    Comma,
    Colon,
    Equals,
    Arrow,
    /// `<=`, as in bounded dynamic dimensions `f32[<=10]`.
    Le,
    Question,
    Eof,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub loc: Location,
    /// True when whitespace or a comment came right before this token.
    pub space_before: bool,
}

/// Inputs beyond these limits are rejected rather than risking time or memory.
pub const MAX_INPUT_BYTES: usize = 64 << 20;
pub const MAX_TOKEN_BYTES: usize = 1 << 20;

pub fn tokenize(src: &str) -> Result<Vec<Token>> {
    if src.len() > MAX_INPUT_BYTES {
        return Err(Error::invalid(
            "hlo.syntax",
            format!(
                "the module text is {} bytes; the limit is {} bytes",
                src.len(),
                MAX_INPUT_BYTES
            ),
        ));
    }
    let b = src.as_bytes();
    let mut toks = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    let mut space = true;
    macro_rules! adv {
        () => {{
            if b[i] == b'\n' {
                line += 1;
                col = 1;
            } else if (b[i] & 0xC0) != 0x80 {
                col += 1;
            }
            i += 1;
        }};
    }
    while i < b.len() {
        let c = b[i];
        let loc = Location { line, col };
        if c.is_ascii_whitespace() {
            adv!();
            space = true;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                adv!();
            }
            space = true;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            adv!();
            adv!();
            loop {
                if i >= b.len() {
                    return Err(
                        Error::invalid("hlo.syntax", "unterminated /* comment").at_location(loc)
                    );
                }
                if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    adv!();
                    adv!();
                    break;
                }
                adv!();
            }
            space = true;
            continue;
        }
        let single = match c {
            b'{' => Some(Tok::LBrace),
            b'}' => Some(Tok::RBrace),
            b'[' => Some(Tok::LBracket),
            b']' => Some(Tok::RBracket),
            b'(' => Some(Tok::LParen),
            b')' => Some(Tok::RParen),
            b',' => Some(Tok::Comma),
            b':' => Some(Tok::Colon),
            b'=' => Some(Tok::Equals),
            b'?' => Some(Tok::Question),
            _ => None,
        };
        if let Some(t) = single {
            adv!();
            toks.push(Token {
                tok: t,
                loc,
                space_before: space,
            });
            space = false;
            continue;
        }
        if c == b'-' && b.get(i + 1) == Some(&b'>') {
            adv!();
            adv!();
            toks.push(Token {
                tok: Tok::Arrow,
                loc,
                space_before: space,
            });
            space = false;
            continue;
        }
        if c == b'<' && b.get(i + 1) == Some(&b'=') {
            adv!();
            adv!();
            toks.push(Token {
                tok: Tok::Le,
                loc,
                space_before: space,
            });
            space = false;
            continue;
        }
        if c == b'"' {
            adv!();
            let mut s = Vec::new();
            loop {
                if i >= b.len() {
                    return Err(
                        Error::invalid("hlo.syntax", "unterminated string").at_location(loc)
                    );
                }
                if s.len() > MAX_TOKEN_BYTES {
                    return Err(Error::invalid("hlo.syntax", "string too long").at_location(loc));
                }
                match b[i] {
                    b'"' => {
                        adv!();
                        break;
                    }
                    b'\\' => {
                        adv!();
                        if i >= b.len() {
                            continue;
                        }
                        let e = b[i];
                        s.push(match e {
                            b'n' => b'\n',
                            b't' => b'\t',
                            b'r' => b'\r',
                            b'0' => 0,
                            other => other,
                        });
                        adv!();
                    }
                    other => {
                        s.push(other);
                        adv!();
                    }
                }
            }
            toks.push(Token {
                tok: Tok::Str(String::from_utf8_lossy(&s).into_owned()),
                loc,
                space_before: space,
            });
            space = false;
            continue;
        }
        if c == b'%' {
            adv!();
            space = false;
            if i >= b.len() || !is_word_char(b[i]) {
                return Err(
                    Error::invalid("hlo.syntax", "`%` must be followed by a name").at_location(loc),
                );
            }
            continue;
        }
        if is_word_char(c) || c == b'+' {
            let start = i;
            while i < b.len() {
                let ch = b[i];
                if ch == b'-' && b.get(i + 1) == Some(&b'>') {
                    // `b01f_01io->b01f`: an arrow inside a word belongs to convolution dim labels;
                    // anywhere else `->` is a token of its own.
                    if i > start && b.get(i + 2).is_some_and(|&n| n.is_ascii_alphanumeric()) {
                        adv!();
                        adv!();
                    } else {
                        break;
                    }
                } else if is_word_char(ch)
                    // A leading `+` (`+1`) or an exponent's sign (`1e+5`). The leading one must be
                    // consumed here: an empty word would never advance the lexer.
                    || (ch == b'+' && (i == start || matches!(b[i - 1], b'e' | b'E')))
                {
                    adv!();
                } else {
                    break;
                }
            }
            if i - start > MAX_TOKEN_BYTES {
                return Err(Error::invalid("hlo.syntax", "token too long").at_location(loc));
            }
            let w = src[start..i].to_string();
            let tok = match b.get(i) {
                Some(b':') if !w.starts_with('-') => {
                    adv!();
                    Tok::Name(w)
                }
                Some(b'=') if !w.starts_with('-') => {
                    adv!();
                    Tok::Key(w)
                }
                _ => Tok::Word(w),
            };
            toks.push(Token {
                tok,
                loc,
                space_before: space,
            });
            space = false;
            continue;
        }
        let ch = src[i..].chars().next().unwrap_or('?');
        return Err(
            Error::invalid("hlo.syntax", format!("unexpected character {ch:?}")).at_location(loc),
        );
    }
    toks.push(Token {
        tok: Tok::Eof,
        loc: Location { line, col },
        space_before: true,
    });
    Ok(toks)
}

fn is_word_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'-'
}

/// Is this word an identifier (starts with a letter or `_`)?
pub fn is_identifier(w: &str) -> bool {
    w.as_bytes()
        .first()
        .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_')
        && w.bytes().all(is_word_char)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(src: &str) -> Vec<Tok> {
        tokenize(src).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn lexes_names_keys_and_patterns() {
        let t = words("%p0 = f32[2,<=3]{1,0} parameter(0), window={size=2x2 pad=0_1x-1_1} // c\n");
        assert_eq!(t[0], Tok::Word("p0".into()));
        assert_eq!(t[1], Tok::Equals);
        assert!(t.contains(&Tok::Le));
        assert!(t.contains(&Tok::Key("window".into())));
        assert!(t.contains(&Tok::Word("2x2".into())));
        assert!(t.contains(&Tok::Word("0_1x-1_1".into())));
        assert_eq!(
            words("dim_labels=b01f_01io->b01f")[1],
            Tok::Word("b01f_01io->b01f".into())
        );
        assert_eq!(words("(a: f32[]) -> f32[]")[1], Tok::Name("a".into()));
        assert!(words("(a: f32[]) -> f32[]").contains(&Tok::Arrow));
        assert_eq!(words("1e+3")[0], Tok::Word("1e+3".into()));
        // A lone `+` once made the lexer loop forever without advancing (found by the fuzzer).
        assert_eq!(words("c + 1")[1], Tok::Word("+".into()));
        assert_eq!(words("c += 1")[1], Tok::Key("+".into()));
    }

    #[test]
    fn rejects_garbage_with_location() {
        let e = tokenize("x = f32[] \u{1F600}").unwrap_err();
        assert_eq!(e.location, Some(Location { line: 1, col: 11 }));
        assert!(tokenize("/* open").is_err());
        assert!(tokenize("\"open").is_err());
        // A lone `+` once lexed as an empty word without advancing, looping until memory ran out.
        assert_eq!(
            words("+ +1"),
            [Tok::Word("+".into()), Tok::Word("+1".into()), Tok::Eof]
        );
    }
}
