//! Literal text: `f32[2] {1, 2}`, `pred[] true`, `(f32[] 1, s32[2] {1, 2})`, and the value part
//! alone (what `constant(...)` holds), as the HLO text format writes them.

use super::{Array, ArrayData, C64, C128, Literal, Scalar};
use crate::error::{Error, Location, Result};
use crate::shape::{ArrayShape, Shape};
use crate::syntax::{Cursor, Tok, comma_list, describe, parse_i128, syntax};
use crate::types::ElementType;

/// Parses a literal with its shape: `f32[2] {1, 2}`, `pred[] true`, `(f32[] 1, s32[2] {1, 2})`.
pub fn parse_literal(src: &str) -> Result<Literal> {
    let mut c = Cursor::new(src)?;
    let l = c.literal_with_shape()?;
    c.expect_eof()?;
    Ok(l)
}

impl Cursor {
    pub fn literal_with_shape(&mut self) -> Result<Literal> {
        self.enter()?;
        let l = if *self.peek() == Tok::LParen {
            self.next();
            Literal::Tuple(comma_list(
                self,
                Tok::RParen,
                "`)` closing the tuple literal",
                |c| c.literal_with_shape(),
            )?)
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
    pub fn literal_body(&mut self, shape: &Shape) -> Result<Literal> {
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
    pub fn float_value(&mut self, ty: ElementType) -> Result<f64> {
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
}
