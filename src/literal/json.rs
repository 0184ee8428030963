//! The JSON form of literals used by golden cases and the backend protocol:
//! `{"shape": "f32[2,3]", "data": [1, 2, 3, 4, 5, 6]}` or `{"tuple": [LITERAL, ...]}`.
//! `data` lists every element in logical row-major order whatever the layout: PRED as booleans,
//! integers as JSON integers over their full range, floats as numbers or "nan"/"-nan"/"inf"/"-inf"
//! (negative zero kept), complex as `[re, im]`. A token is `{"token": true}`.

use super::{Array, ArrayData, C64, C128, Literal, Scalar, text};
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::types::ElementType;
use half::{bf16, f16};
use serde_json::{Map, Number, Value};

pub fn literal_to_json(l: &Literal) -> Value {
    match l {
        Literal::Token => {
            let mut m = Map::new();
            m.insert("token".into(), Value::Bool(true));
            Value::Object(m)
        }
        Literal::Tuple(t) => {
            let mut m = Map::new();
            m.insert(
                "tuple".into(),
                Value::Array(t.iter().map(literal_to_json).collect()),
            );
            Value::Object(m)
        }
        Literal::Array(a) => {
            let mut m = Map::new();
            m.insert("shape".into(), Value::String(a.shape.to_string()));
            let data = (0..a.len())
                .map(|i| scalar_to_json(a.data.get(i)))
                .collect();
            m.insert("data".into(), Value::Array(data));
            Value::Object(m)
        }
    }
}

fn float_json(x: f64, text: String) -> Value {
    if x.is_nan() {
        return Value::String(if x.is_sign_negative() { "-nan" } else { "nan" }.into());
    }
    if x.is_infinite() {
        return Value::String(if x > 0.0 { "inf" } else { "-inf" }.into());
    }
    // Go through the shortest decimal text so that an f32 0.1 is written "0.1", not its f64 expansion.
    let v: f64 = text.parse().unwrap_or(x);
    Number::from_f64(v)
        .map(Value::Number)
        .unwrap_or(Value::Null)
}

fn scalar_to_json(s: Scalar) -> Value {
    match s {
        Scalar::Pred(b) => Value::Bool(b),
        Scalar::F16(x) => float_json(x.to_f64(), text::scalar_text(s)),
        Scalar::BF16(x) => float_json(x.to_f64(), text::scalar_text(s)),
        Scalar::F32(x) => float_json(x as f64, text::format_float_f32(x)),
        Scalar::F64(x) => float_json(x, text::format_float_f64(x)),
        Scalar::C64(c) => Value::Array(vec![
            float_json(c.re as f64, text::format_float_f32(c.re)),
            float_json(c.im as f64, text::format_float_f32(c.im)),
        ]),
        Scalar::C128(c) => Value::Array(vec![
            float_json(c.re, text::format_float_f64(c.re)),
            float_json(c.im, text::format_float_f64(c.im)),
        ]),
        other => match other.as_i128() {
            Some(v) if v >= 0 => Value::Number(Number::from(v as u64)),
            Some(v) => Value::Number(Number::from(v as i64)),
            None => Value::Null,
        },
    }
}

fn bad(msg: String) -> Error {
    Error::invalid("literal.json", msg)
}

/// Reads a JSON literal. Shapes are written in HLO shape syntax (`f32[2,3]`, layouts allowed).
pub fn literal_from_json(v: &Value) -> Result<Literal> {
    literal_from_json_depth(v, 0)
}

fn literal_from_json_depth(v: &Value, depth: usize) -> Result<Literal> {
    if depth > 64 {
        return Err(bad("literal nests tuples more than 64 deep".into()));
    }
    let obj = v
        .as_object()
        .ok_or_else(|| bad(format!("a literal must be a JSON object, got {}", short(v))))?;
    if let Some(t) = obj.get("tuple") {
        let items = t
            .as_array()
            .ok_or_else(|| bad("\"tuple\" must be a list of literals".into()))?;
        return Ok(Literal::Tuple(
            items
                .iter()
                .map(|e| literal_from_json_depth(e, depth + 1))
                .collect::<Result<_>>()?,
        ));
    }
    if obj.contains_key("token") {
        return Ok(Literal::Token);
    }
    let shape_text = obj
        .get("shape")
        .and_then(|s| s.as_str())
        .ok_or_else(|| bad("a literal needs \"shape\" (a string) or \"tuple\"".into()))?;
    let shape = crate::shape::text::parse_shape(shape_text)
        .map_err(|e| bad(format!("bad shape {shape_text:?}: {}", e.message)))?;
    let ashape = match shape {
        Shape::Array(a) => a,
        Shape::Token => return Ok(Literal::Token),
        Shape::Tuple(_) => return Err(bad("a tuple literal is written {\"tuple\": [...]}".into())),
    };
    let data = obj
        .get("data")
        .and_then(|d| d.as_array())
        .ok_or_else(|| bad("\"data\" must be a list".into()))?;
    let n = ashape
        .checked_element_count()
        .ok_or_else(|| bad(format!("shape {ashape} has too many elements")))?;
    if data.len() as i64 != n {
        return Err(bad(format!(
            "shape {ashape} has {n} elements but \"data\" lists {}",
            data.len()
        )));
    }
    let ty = ashape.ty;
    let mut out = ArrayData::zeros(ty, data.len());
    for (i, e) in data.iter().enumerate() {
        let s = scalar_from_json(ty, e).map_err(|m| bad(format!("element {i}: {m}")))?;
        out.set(i, s)?;
    }
    Ok(Literal::Array(Array {
        shape: ashape,
        data: out,
    }))
}

fn short(v: &Value) -> String {
    crate::error::shorten(&v.to_string(), 60)
}

fn json_f64(v: &Value) -> std::result::Result<f64, String> {
    match v {
        Value::Number(n) => n.as_f64().ok_or_else(|| format!("{n} is not a number")),
        Value::String(s) => match s.as_str() {
            "nan" => Ok(f64::NAN),
            "-nan" => Ok(-f64::NAN),
            "inf" => Ok(f64::INFINITY),
            "-inf" => Ok(f64::NEG_INFINITY),
            _ => Err(format!(
                "{s:?} is not a number (strings allowed: \"nan\", \"-nan\", \"inf\", \"-inf\")"
            )),
        },
        other => Err(format!("expected a number, got {}", short(other))),
    }
}

/// Reads a float element; through f64 for F32 too, via the JSON number's decimal text where it is
/// exact, so 0.1 reads as the f32 nearest 0.1.
fn json_f32(v: &Value) -> std::result::Result<f32, String> {
    if let Value::Number(n) = v
        && let Ok(x) = n.to_string().parse::<f32>()
    {
        return Ok(x);
    }
    json_f64(v).map(|x| x as f32)
}

pub(crate) fn scalar_from_json(ty: ElementType, v: &Value) -> std::result::Result<Scalar, String> {
    Ok(match ty {
        ElementType::Pred => match v {
            Value::Bool(b) => Scalar::Pred(*b),
            Value::Number(n) if n.as_u64() == Some(0) || n.as_u64() == Some(1) => {
                Scalar::Pred(n.as_u64() == Some(1))
            }
            other => return Err(format!("expected true or false, got {}", short(other))),
        },
        ElementType::F16 => Scalar::F16(f16::from_f64(json_f64(v)?)),
        ElementType::BF16 => Scalar::BF16(bf16::from_f64(json_f64(v)?)),
        ElementType::F32 => Scalar::F32(json_f32(v)?),
        ElementType::F64 => Scalar::F64(json_f64(v)?),
        ElementType::C64 | ElementType::C128 => {
            let pair = v
                .as_array()
                .filter(|p| p.len() == 2)
                .ok_or_else(|| format!("a complex element is [re, im], got {}", short(v)))?;
            if ty == ElementType::C64 {
                Scalar::C64(C64::new(json_f32(&pair[0])?, json_f32(&pair[1])?))
            } else {
                Scalar::C128(C128::new(json_f64(&pair[0])?, json_f64(&pair[1])?))
            }
        }
        ElementType::Token => return Err("token has no elements".into()),
        _ => {
            let n = match v {
                Value::Number(n) => n,
                other => return Err(format!("expected an integer, got {}", short(other))),
            };
            let x: i128 = if let Some(i) = n.as_i64() {
                i as i128
            } else if let Some(u) = n.as_u64() {
                u as i128
            } else {
                return Err(format!("{n} is not an integer"));
            };
            Scalar::from_i128(ty, x).ok_or_else(|| format!("{x} is out of range for {ty}"))?
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip_special_values() {
        let l = Literal::vec(
            vec![5],
            vec![0.1f32, -0.0, f32::NAN, f32::INFINITY, -3.5e-40],
        )
        .unwrap();
        let j = literal_to_json(&l);
        assert_eq!(j["data"][0], serde_json::json!(0.1));
        let back = literal_from_json(&j).unwrap();
        let (a, b) = (l.as_array().unwrap(), back.as_array().unwrap());
        for i in 0..5 {
            let (x, y) = (a.data.get(i), b.data.get(i));
            assert!(
                x.bits_eq(&y) || (x.is_nan() && y.is_nan()),
                "{x:?} vs {y:?}"
            );
        }
    }

    #[test]
    fn json_full_integer_range() {
        let l = Literal::vec(vec![2], vec![u64::MAX, 0]).unwrap();
        assert_eq!(literal_from_json(&literal_to_json(&l)).unwrap(), l);
        let l = Literal::vec(vec![2], vec![i64::MIN, i64::MAX]).unwrap();
        assert_eq!(literal_from_json(&literal_to_json(&l)).unwrap(), l);
        let bad = serde_json::json!({"shape": "u8[1]", "data": [256]});
        assert!(literal_from_json(&bad).is_err());
    }
}
