//! Attribute values as the parser reads them. Each key has one value syntax (`dimensions` is an
//! integer list wherever it appears, `window` a window), so the parser reads a value by its key
//! into a `RawValue`; the op's `OpAttrs::decode` (`hlo::attrs`) then turns the values into its
//! typed attributes and refuses the keys it does not take. Keys the parser does not know are read
//! as balanced text and kept only if every instruction may carry them.

use super::Parser;
use crate::error::{Error, Location, Result};
use crate::hlo::ast::CompId;
use crate::hlo::attrs::{ConvDims, PadDim, SliceDim, Window, WindowDim, quote};
use crate::literal::Literal;
use crate::shape::Shape;
use crate::syntax::{MAX_NESTING, Tok, comma_list, describe, parse_i64, syntax, tok_text};
use crate::types::ElementType;
use std::collections::HashMap;

/// One `key=value` as read.
#[derive(Clone, Debug, PartialEq)]
pub struct RawAttr {
    pub key: String,
    pub value: RawValue,
    pub loc: Location,
}

#[derive(Clone, Debug, PartialEq)]
pub enum RawValue {
    Int(i64),
    Bool(bool),
    Float(f64),
    Ints(Vec<i64>),
    IntLists(Vec<Vec<i64>>),
    Words(Vec<String>),
    Comp(CompId),
    Comps(Vec<CompId>),
    Slice(Vec<SliceDim>),
    Padding(Vec<PadDim>),
    Window(Window),
    ConvDims(ConvDims),
    Str(String),
    /// A bare word: `direction=LT`, `fft_type=RFFT`, `algorithm=rng_philox`.
    Word(String),
    Shape(Shape),
    Shapes(Vec<Shape>),
    Literal(Literal),
    /// A value of a key the parser does not interpret (`metadata={...}`, `sharding={...}`): its
    /// source text.
    Opaque(String),
}

impl RawValue {
    /// What kind of value this is, for errors.
    pub fn kind(&self) -> &'static str {
        match self {
            RawValue::Int(_) => "an integer",
            RawValue::Bool(_) => "true or false",
            RawValue::Float(_) => "a number",
            RawValue::Ints(_) => "an integer list",
            RawValue::IntLists(_) => "a list of integer lists",
            RawValue::Words(_) => "a list of words",
            RawValue::Comp(_) => "a computation",
            RawValue::Comps(_) => "a list of computations",
            RawValue::Slice(_) => "slice ranges",
            RawValue::Padding(_) => "a padding",
            RawValue::Window(_) => "a window",
            RawValue::ConvDims(_) => "dimension labels",
            RawValue::Str(_) => "a string",
            RawValue::Word(_) => "a word",
            RawValue::Shape(_) => "a shape",
            RawValue::Shapes(_) => "a list of shapes",
            RawValue::Literal(_) => "a literal",
            RawValue::Opaque(_) => "a value",
        }
    }

    /// The value as text, for values kept verbatim (generic attributes, `backend_config`).
    pub fn text(&self) -> String {
        match self {
            RawValue::Str(s) => quote(s),
            RawValue::Opaque(s) | RawValue::Word(s) => s.clone(),
            RawValue::Int(x) => x.to_string(),
            RawValue::Bool(b) => b.to_string(),
            other => format!("{other:?}"),
        }
    }
}

impl Parser {
    pub(super) fn attr_value(&mut self, key: &str) -> Result<RawValue> {
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
            | "inferred_dimension" => RawValue::Int(self.int(key)?),
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
                    "true" => RawValue::Bool(true),
                    "false" => RawValue::Bool(false),
                    _ => {
                        return Err(syntax(
                            format!("`{key}` takes true or false, not {w:?}"),
                            loc,
                        ));
                    }
                }
            }
            "epsilon" => RawValue::Float(self.float_value(ElementType::F64)?),
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
            | "fft_length" => RawValue::Ints(self.int_list()?),
            "source_target_pairs" => RawValue::IntLists(self.int_list_list()?),
            "replica_groups" => RawValue::IntLists(self.replica_groups()?),
            "to_apply" | "condition" | "body" | "true_computation" | "false_computation"
            | "select" | "scatter" | "calls" => RawValue::Comp(self.computation_ref()?),
            "branch_computations" | "called_computations" => {
                self.expect(Tok::LBrace, "`{` opening the computation list")?;
                RawValue::Comps(comma_list(self, Tok::RBrace, "`}`", |p| {
                    p.computation_ref()
                })?)
            }
            "slice" => RawValue::Slice(self.slice_ranges()?),
            "padding" => RawValue::Padding(self.padding()?),
            "window" => RawValue::Window(self.window()?),
            "dim_labels" => {
                let w = self.word("dimension labels such as b01f_01io->b01f")?;
                RawValue::ConvDims(
                    parse_dim_labels(&w).map_err(|m| {
                        Error::invalid("convolution.dim_labels", m).at_location(loc)
                    })?,
                )
            }
            "direction" | "type" | "fft_type" | "distribution" | "algorithm" | "transpose_a"
            | "api_version" | "schedule" | "kind" => RawValue::Word(self.word(key)?),
            "operand_precision" => {
                self.expect(Tok::LBrace, "`{` opening the precision list")?;
                RawValue::Words(comma_list(self, Tok::RBrace, "`}`", |p| {
                    p.word("a precision")
                })?)
            }
            "operand_layout_constraints" => {
                self.expect(Tok::LBrace, "`{` opening the shape list")?;
                RawValue::Shapes(comma_list(self, Tok::RBrace, "`}`", |p| p.shape())?)
            }
            "custom_call_target" | "infeed_config" | "outfeed_config" => match self.next() {
                Tok::Str(s) => RawValue::Str(s),
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
                    RawValue::Str(s)
                }
                _ => RawValue::Opaque(self.opaque_value()?),
            },
            "outfeed_shape" => RawValue::Shape(self.shape()?),
            "literal" => RawValue::Literal(self.literal_with_shape()?),
            _ => RawValue::Opaque(self.opaque_value()?),
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
        let v = comma_list(self, Tok::RBrace, "`}` closing the integer list", |p| {
            p.int("an integer")
        })?;
        if v.len() > 1 << 16 {
            return Err(syntax("integer list too long", self.loc()));
        }
        Ok(v)
    }

    fn int_list_list(&mut self) -> Result<Vec<Vec<i64>>> {
        self.expect(Tok::LBrace, "`{` opening a list of lists")?;
        comma_list(self, Tok::RBrace, "`}`", |p| p.int_list())
    }

    /// `{{0,1},{2,3}}`, `{}`, or the iota form `[G,S]<=[d0,d1,...]` with an optional `T(perm)`.
    pub(super) fn replica_groups(&mut self) -> Result<Vec<Vec<i64>>> {
        if *self.peek() == Tok::LBrace {
            return self.int_list_list();
        }
        let loc = self.loc();
        let bracket = |p: &mut Parser| -> Result<Vec<i64>> {
            p.expect(Tok::LBracket, "`[`")?;
            comma_list(p, Tok::RBracket, "`]`", |p| p.int("an integer"))
        };
        let gs = bracket(self)?;
        self.expect(Tok::Le, "`<=` in iota replica groups")?;
        let dims = bracket(self)?;
        let mut perm: Vec<i64> = (0..dims.len() as i64).collect();
        if matches!(self.peek(), Tok::Word(w) if w == "T") {
            self.next();
            self.expect(Tok::LParen, "`(`")?;
            perm = comma_list(self, Tok::RParen, "`)`", |p| p.int("an integer"))?;
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
        comma_list(self, Tok::RBrace, "`}` closing the slice ranges", |p| {
            let loc = p.loc();
            p.expect(Tok::LBracket, "`[start:limit]`")?;
            let mut nums = vec![];
            loop {
                match p.next() {
                    Tok::Name(w) | Tok::Word(w) => nums.push(
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
                    break;
                }
            }
            match nums[..] {
                [start, limit] => Ok(SliceDim {
                    start,
                    limit,
                    stride: 1,
                }),
                [start, limit, stride] => Ok(SliceDim {
                    start,
                    limit,
                    stride,
                }),
                _ => Err(syntax(
                    "a slice range is [start:limit] or [start:limit:stride]",
                    loc,
                )),
            }
        })
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
    pub(super) fn opaque_value(&mut self) -> Result<String> {
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
