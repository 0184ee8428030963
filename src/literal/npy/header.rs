//! The header of a `.npy` file: the magic string, the version, and the Python dict literal
//! that names the dtype, the memory order and the shape, read by a parser of the few Python
//! literals such a header holds (strings, booleans, integers, `None`, tuples, lists and dicts).

use super::MAX_HEADER;
use std::fmt;

/// One of the Python literals a `.npy` header is written in.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Py {
    Str(String),
    Bool(bool),
    Int(u64),
    None,
    /// A tuple or a list.
    Seq(Vec<Py>, bool),
    Dict(Vec<(Py, Py)>),
}

impl fmt::Display for Py {
    /// As Python's `repr` writes it (strings in single quotes), for messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Py::Str(s) => write!(f, "'{}'", s.escape_default()),
            Py::Bool(true) => f.write_str("True"),
            Py::Bool(false) => f.write_str("False"),
            Py::Int(n) => write!(f, "{n}"),
            Py::None => f.write_str("None"),
            Py::Seq(v, tuple) => {
                f.write_str(if *tuple { "(" } else { "[" })?;
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{x}")?;
                }
                if *tuple && v.len() == 1 {
                    f.write_str(",")?;
                }
                f.write_str(if *tuple { ")" } else { "]" })
            }
            Py::Dict(v) => {
                f.write_str("{")?;
                for (i, (k, x)) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {x}")?;
                }
                f.write_str("}")
            }
        }
    }
}

/// A parser of the Python literals NumPy writes headers in: dicts, tuples, lists, strings,
/// `True`, `False`, `None` and non-negative integers (with Python 2's `L` suffix, which old
/// files carry in their shapes). Nesting is bounded, so a hostile header cannot exhaust the
/// stack.
struct PyParser<'a> {
    s: &'a [u8],
    at: usize,
}

impl PyParser<'_> {
    fn parse(text: &str) -> std::result::Result<Py, String> {
        let mut p = PyParser {
            s: text.as_bytes(),
            at: 0,
        };
        let v = p.value(0)?;
        p.blank();
        if p.at != p.s.len() {
            return Err(format!(
                "unexpected text after the header's dict at byte {}",
                p.at
            ));
        }
        Ok(v)
    }

    fn blank(&mut self) {
        while self.s.get(self.at).is_some_and(|c| c.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.blank();
        if self.s.get(self.at) == Some(&c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> std::result::Result<Py, String> {
        if depth > 32 {
            return Err("the header nests too deeply".into());
        }
        self.blank();
        let at = self.at;
        match self.s.get(at) {
            Some(b'{') => {
                self.at += 1;
                let mut v = vec![];
                while !self.eat(b'}') {
                    let k = self.value(depth + 1)?;
                    if !self.eat(b':') {
                        return Err(format!("expected ':' at byte {}", self.at));
                    }
                    v.push((k, self.value(depth + 1)?));
                    if !self.eat(b',') && !self.eat(b'}') {
                        return Err(format!("expected ',' or '}}' at byte {}", self.at));
                    } else if self.s[self.at - 1] == b'}' {
                        break;
                    }
                }
                Ok(Py::Dict(v))
            }
            Some(&open @ (b'(' | b'[')) => {
                self.at += 1;
                let close = if open == b'(' { b')' } else { b']' };
                let mut v = vec![];
                while !self.eat(close) {
                    v.push(self.value(depth + 1)?);
                    if !self.eat(b',') && !self.eat(close) {
                        return Err(format!("expected ',' at byte {}", self.at));
                    } else if self.s[self.at - 1] == close {
                        break;
                    }
                }
                Ok(Py::Seq(v, open == b'('))
            }
            Some(&q @ (b'\'' | b'"')) => {
                let start = at + 1;
                let len = self.s[start..]
                    .iter()
                    .position(|&c| c == q || c == b'\\')
                    .ok_or("a string that does not end")?;
                if self.s[start + len] == b'\\' {
                    return Err("escapes in header strings are not supported".into());
                }
                self.at = start + len + 1;
                let text = std::str::from_utf8(&self.s[start..start + len])
                    .map_err(|_| "a header string that is not text")?;
                Ok(Py::Str(text.to_string()))
            }
            Some(c) if c.is_ascii_digit() => {
                let len = self.s[at..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                let digits = std::str::from_utf8(&self.s[at..at + len]).unwrap_or("");
                let n = digits
                    .parse::<u64>()
                    .map_err(|_| format!("the number {digits} is too large"))?;
                self.at = at + len;
                if self.s.get(self.at) == Some(&b'L') {
                    self.at += 1;
                }
                Ok(Py::Int(n))
            }
            Some(_) => {
                for (word, v) in [
                    ("True", Py::Bool(true)),
                    ("False", Py::Bool(false)),
                    ("None", Py::None),
                ] {
                    if self.s[at..].starts_with(word.as_bytes()) {
                        self.at = at + word.len();
                        return Ok(v);
                    }
                }
                Err(format!("unexpected text at byte {at}"))
            }
            None => Err("the header ends early".into()),
        }
    }
}

/// What a `.npy` header says.
pub(super) struct Header {
    /// The dtype as written (`'<f4'`, or a list for a structured dtype).
    pub(super) descr: Py,
    pub(super) fortran_order: bool,
    pub(super) shape: Vec<u64>,
    /// Where the elements start.
    pub(super) data: usize,
}

pub(super) const MAGIC: &[u8] = b"\x93NUMPY";

impl Header {
    pub(super) fn parse(bytes: &[u8]) -> std::result::Result<Header, String> {
        if bytes.len() < 10 || !bytes.starts_with(MAGIC) {
            return Err("no NumPy magic string at the start".into());
        }
        let (major, minor) = (bytes[6], bytes[7]);
        let (len, start) = match major {
            1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as u64, 10),
            2 | 3 if bytes.len() >= 12 => (
                u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as u64,
                12,
            ),
            _ => {
                return Err(format!(
                    "format version {major}.{minor} is not one NumPy writes"
                ));
            }
        };
        if len > MAX_HEADER || start + len as usize > bytes.len() {
            return Err(format!("a header of {len} bytes, past the end of the file"));
        }
        let raw = &bytes[start..start + len as usize];
        // Versions 1 and 2 are Latin-1; 3 is UTF-8. Keys and dtype names are ASCII either way.
        let text: String = if major == 3 {
            std::str::from_utf8(raw)
                .map_err(|_| "a version 3 header that is not UTF-8")?
                .to_string()
        } else {
            raw.iter().map(|&b| b as char).collect()
        };
        let Py::Dict(entries) = PyParser::parse(&text)? else {
            return Err("the header is not a dict".into());
        };
        let get = |key: &str| {
            entries
                .iter()
                .find(|(k, _)| matches!(k, Py::Str(s) if s == key))
                .map(|(_, v)| v)
                .ok_or(format!("the header has no '{key}'"))
        };
        let descr = get("descr")?.clone();
        let fortran_order = match get("fortran_order")? {
            Py::Bool(b) => *b,
            other => return Err(format!("'fortran_order' is {other}, not True or False")),
        };
        let shape = match get("shape")? {
            Py::Seq(dims, true) => dims
                .iter()
                .map(|d| match d {
                    Py::Int(n) => Ok(*n),
                    other => Err(format!("a dimension {other} that is not a size")),
                })
                .collect::<std::result::Result<Vec<u64>, String>>()?,
            other => return Err(format!("'shape' is {other}, not a tuple")),
        };
        Ok(Header {
            descr,
            fortran_order,
            shape,
            data: start + len as usize,
        })
    }
}
