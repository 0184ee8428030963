//! The payload structs: one per op, or per group of ops sharing attributes, declared with
//! `op_attrs!` (or written out where an attribute's text needs more than one value type).

use super::*;

op_attrs! {
    /// `iota`.
    pub struct IotaAttrs {
        pub dimension: i64 = "iota_dimension",
    }
}

op_attrs! {
    /// `get-tuple-element`.
    pub struct IndexAttrs {
        pub index: i64 = "index",
    }
}

op_attrs! {
    /// `broadcast`: operand dimension `i` becomes result dimension `dimensions[i]`.
    pub struct BroadcastAttrs {
        pub dimensions: Vec<i64> = "dimensions" or vec![],
    }
}

op_attrs! {
    /// `reshape`.
    pub struct ReshapeAttrs {
        pub inferred_dimension: Option<i64> = "inferred_dimension" or None,
    }
}

op_attrs! {
    /// Ops that name dimensions: transpose, reverse, concatenate, get/set-dimension-size.
    pub struct DimsAttrs {
        pub dimensions: Vec<i64> = "dimensions",
    }
}

op_attrs! {
    /// `slice`.
    pub struct SliceAttrs {
        pub slice: Vec<SliceDim> = "slice",
    }
}

op_attrs! {
    /// `dynamic-slice`.
    pub struct DynamicSliceAttrs {
        pub sizes: Vec<i64> = "dynamic_slice_sizes",
    }
}

op_attrs! {
    /// `pad`.
    pub struct PadAttrs {
        pub padding: Vec<PadDim> = "padding",
    }
}

op_attrs! {
    /// `compare`.
    pub struct CompareAttrs {
        pub direction: ComparisonDirection = "direction",
        pub compare_type: Option<ComparisonType> = "type" or None,
    }
}

op_attrs! {
    /// `reduce-precision`.
    pub struct ReducePrecisionAttrs {
        pub exponent_bits: i64 = "exponent_bits",
        pub mantissa_bits: i64 = "mantissa_bits",
    }
}

op_attrs! {
    /// `reduce`.
    pub struct ReduceAttrs {
        pub dimensions: Vec<i64> = "dimensions",
        pub to_apply: Comp = "to_apply",
    }
}

op_attrs! {
    /// `reduce-window` (an omitted window is the empty window of a rank-0 operand).
    pub struct ReduceWindowAttrs {
        pub window: Window = "window" or Window::default(),
        pub to_apply: Comp = "to_apply",
    }
}

op_attrs! {
    /// `select-and-scatter`.
    pub struct SelectAndScatterAttrs {
        pub window: Window = "window" or Window::default(),
        pub select: Comp = "select",
        pub scatter: Comp = "scatter",
    }
}

op_attrs! {
    /// `map`.
    pub struct MapAttrs {
        pub dimensions: Option<Vec<i64>> = "dimensions" or None,
        pub to_apply: Comp = "to_apply",
    }
}

op_attrs! {
    /// `sort`.
    pub struct SortAttrs {
        pub dimensions: Vec<i64> = "dimensions",
        pub is_stable: bool = "is_stable" or false,
        pub to_apply: Comp = "to_apply",
    }
}

op_attrs! {
    /// `topk`.
    pub struct TopKAttrs {
        pub k: i64 = "k",
        pub largest: bool = "largest" or true,
    }
}

op_attrs! {
    /// `gather`.
    pub struct GatherAttrs {
        pub offset_dims: Vec<i64> = "offset_dims",
        pub collapsed_slice_dims: Vec<i64> = "collapsed_slice_dims",
        pub start_index_map: Vec<i64> = "start_index_map",
        pub operand_batching_dims: Vec<i64> = "operand_batching_dims" or vec![],
        pub start_indices_batching_dims: Vec<i64> = "start_indices_batching_dims" or vec![],
        pub index_vector_dim: i64 = "index_vector_dim",
        pub slice_sizes: Vec<i64> = "slice_sizes",
        pub indices_are_sorted: bool = "indices_are_sorted" or false,
    }
}

op_attrs! {
    /// `scatter`.
    pub struct ScatterAttrs {
        pub update_window_dims: Vec<i64> = "update_window_dims",
        pub inserted_window_dims: Vec<i64> = "inserted_window_dims",
        pub scatter_dims_to_operand_dims: Vec<i64> = "scatter_dims_to_operand_dims",
        pub input_batching_dims: Vec<i64> = "input_batching_dims" or vec![],
        pub scatter_indices_batching_dims: Vec<i64> = "scatter_indices_batching_dims" or vec![],
        pub index_vector_dim: i64 = "index_vector_dim",
        pub indices_are_sorted: bool = "indices_are_sorted" or false,
        pub unique_indices: bool = "unique_indices" or false,
        pub to_apply: Comp = "to_apply",
    }
}

op_attrs! {
    /// `dot`.
    pub struct DotAttrs {
        pub lhs_batch_dims: Vec<i64> = "lhs_batch_dims" or vec![],
        pub lhs_contracting_dims: Vec<i64> = "lhs_contracting_dims" or vec![],
        pub rhs_batch_dims: Vec<i64> = "rhs_batch_dims" or vec![],
        pub rhs_contracting_dims: Vec<i64> = "rhs_contracting_dims" or vec![],
        pub operand_precision: Vec<Precision> = "operand_precision" or vec![],
        pub algorithm: Option<DotAlgorithm> = "algorithm" or None,
    }
}

op_attrs! {
    /// `convolution` (an omitted window is the kernel's size with unit strides).
    pub struct ConvolutionAttrs {
        pub window: Option<Window> = "window" or None,
        pub dim_labels: ConvDims = "dim_labels",
        pub feature_group_count: i64 = "feature_group_count" or 1,
        pub batch_group_count: i64 = "batch_group_count" or 1,
        pub operand_precision: Vec<Precision> = "operand_precision" or vec![],
    }
}

/// `call`. With `is_composite=true` the call stands for a named composite operation whose
/// decomposition is the callee; its name, attributes and version travel in the frontend
/// attributes `composite.name`, `composite.attributes` and `composite.version`, checked here as
/// XLA's `ShapeVerifier::HandleCall` checks them.
#[derive(Clone, Debug, PartialEq)]
pub struct CallAttrs {
    pub to_apply: Comp,
    pub is_composite: bool,
    pub composite: Option<Composite>,
}

/// What a composite call says about the operation it stands for.
#[derive(Clone, Debug, PartialEq)]
pub struct Composite {
    pub name: String,
    /// The attribute dictionary as written (XLA keeps it as MLIR attribute text); `{}` when absent.
    pub attributes: String,
    /// 0 when absent.
    pub version: i64,
}

impl OpAttrs for CallAttrs {
    fn decode(d: &mut Decoder) -> Result<CallAttrs> {
        let to_apply = d.req("to_apply")?;
        let is_composite = d.or("is_composite", false)?;
        let composite = if is_composite {
            let text = d.generic_text("frontend_attributes").unwrap_or_default();
            Some(composite(&text).map_err(|(rule, m)| Error::invalid(rule, m).at_location(d.loc))?)
        } else {
            None
        };
        Ok(CallAttrs {
            to_apply,
            is_composite,
            composite,
        })
    }
    fn encode(&self, w: &mut AttrWriter) {
        w.field("to_apply", &self.to_apply);
        if self.is_composite {
            w.field("is_composite", &true);
        }
        // The composite's name, attributes and version are printed with the frontend
        // attributes they came from.
    }
    fn comps(&self, out: &mut Vec<CompId>) {
        AttrType::comps(&self.to_apply, out);
    }
}

/// Splits a frontend-attributes text `{k=v,k="v",k={...}}` into its entries, values unquoted.
/// Commas inside braces or quotes belong to the value.
fn frontend_entries(text: &str) -> Vec<(String, String)> {
    let body = text.trim();
    let body = body
        .strip_prefix('{')
        .and_then(|b| b.strip_suffix('}'))
        .unwrap_or(body);
    let mut parts = vec![];
    let (mut depth, mut quoted, mut escaped, mut start) = (0i64, false, false, 0);
    for (i, ch) in body.char_indices() {
        match ch {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '{' if !quoted => depth += 1,
            '}' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                parts.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&body[start..]);
    parts
        .into_iter()
        .filter_map(|p| {
            let (k, v) = p.split_once('=')?;
            let v = v.trim();
            let v = v
                .strip_prefix('"')
                .and_then(|x| x.strip_suffix('"'))
                .unwrap_or(v);
            Some((k.trim().to_string(), v.to_string()))
        })
        .collect()
}

fn composite(text: &str) -> std::result::Result<Composite, (&'static str, String)> {
    let entries = frontend_entries(text);
    let get = |k: &str| {
        entries
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    let name = get("composite.name").unwrap_or_default();
    if name.is_empty() {
        return Err((
            "call.composite_name",
            "a composite call needs the frontend attribute composite.name, not empty".into(),
        ));
    }
    let attributes = match get("composite.attributes") {
        Some(a) if a.is_empty() => {
            return Err((
                "call.composite_attributes",
                "composite.attributes may not be empty (write {} for none)".into(),
            ));
        }
        Some(a) => a,
        None => "{}".to_string(),
    };
    let version = match get("composite.version") {
        Some(v) => v.parse::<i64>().ok().filter(|n| *n >= 0).ok_or_else(|| {
            (
                "call.composite_version",
                format!("composite.version must be a non-negative integer, got {v:?}"),
            )
        })?,
        None => 0,
    };
    Ok(Composite {
        name,
        attributes,
        version,
    })
}

attr_enum! {
    /// `kind=` of `fusion`: how XLA plans to emit the fused kernel (no effect on values).
    pub enum FusionKind ("a fusion kind (kLoop, kInput, kOutput or kCustom)", "fusion.kind") {
        Loop = "kLoop",
        Input = "kInput",
        Output = "kOutput",
        Custom = "kCustom",
    }
}

op_attrs! {
    /// `fusion`: a call of the fused computation, as XLA's fusion passes write it.
    pub struct FusionAttrs {
        pub kind: FusionKind = "kind",
        pub calls: Comp = "calls",
    }
}

op_attrs! {
    /// `async-start`: starts the wrapped computation; `async-done` waits for its result.
    pub struct AsyncStartAttrs {
        pub calls: Comp = "calls",
    }
}

op_attrs! {
    /// `while`.
    pub struct WhileAttrs {
        pub condition: Comp = "condition",
        pub body: Comp = "body",
    }
}

/// `conditional`: a pred selector picks between two computations, an s32 index among a list.
#[derive(Clone, Debug, PartialEq)]
pub enum Branches {
    TrueFalse(Comp, Comp),
    Indexed(Vec<Comp>),
}

impl OpAttrs for Branches {
    fn decode(d: &mut Decoder) -> Result<Branches> {
        let t: Option<Comp> = d.or("true_computation", None)?;
        let f: Option<Comp> = d.or("false_computation", None)?;
        let b: Option<Vec<Comp>> = d.or("branch_computations", None)?;
        match (t, f, b) {
            (Some(t), Some(f), None) => Ok(Branches::TrueFalse(t, f)),
            (None, None, Some(b)) => Ok(Branches::Indexed(b)),
            _ => Err(Error::invalid(
                "conditional.computations",
                "a conditional takes either true_computation and false_computation, or branch_computations={...}",
            )
            .at_location(d.loc)),
        }
    }
    fn encode(&self, w: &mut AttrWriter) {
        match self {
            Branches::TrueFalse(t, f) => {
                w.field("true_computation", t);
                w.field("false_computation", f);
            }
            Branches::Indexed(b) => w.field("branch_computations", b),
        }
    }
    fn comps(&self, out: &mut Vec<CompId>) {
        match self {
            Branches::TrueFalse(t, f) => out.extend([t.0, f.0]),
            Branches::Indexed(b) => out.extend(b.iter().map(|c| c.0)),
        }
    }
}

op_attrs! {
    /// `custom-call`. Besides the target, the attributes say how XLA may schedule the call, how
    /// operands must be laid out, and carry whatever configuration the target reads.
    pub struct CustomCallAttrs {
        pub target: String = "custom_call_target",
        pub api_version: Option<CustomCallApiVersion> = "api_version" or None,
        pub has_side_effect: bool = "custom_call_has_side_effect" or false,
        pub operand_layouts: Option<Vec<Shape>> = "operand_layout_constraints" or None,
        pub called_computations: Vec<Comp> = "called_computations" or vec![],
        pub to_apply: Option<Comp> = "to_apply" or None,
        pub output_to_operand_aliasing: Option<Verbatim> = "output_to_operand_aliasing" or None,
        pub schedule: Option<CustomCallSchedule> = "schedule" or None,
        pub literal: Option<Literal> = "literal" or None,
        pub window: Option<Window> = "window" or None,
        pub dim_labels: Option<ConvDims> = "dim_labels" or None,
        pub feature_group_count: Option<i64> = "feature_group_count" or None,
        pub batch_group_count: Option<i64> = "batch_group_count" or None,
        pub operand_precision: Vec<Precision> = "operand_precision" or vec![],
        pub backend_config: Option<Verbatim> = "backend_config" or None,
    }
}

op_attrs! {
    /// `infeed`.
    pub struct InfeedAttrs {
        pub config: Option<String> = "infeed_config" or None,
    }
}

op_attrs! {
    /// `outfeed`.
    pub struct OutfeedAttrs {
        pub shape: Option<Shape> = "outfeed_shape" or None,
        pub config: Option<String> = "outfeed_config" or None,
    }
}

/// `send`, `recv`, `send-done`, `recv-done`: the channel, and, from the frontend attribute
/// `_xla_send_recv_source_target_pairs` XLA uses for transfers between replicas, the pairs.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelAttrs {
    pub channel_id: Option<i64>,
    pub is_host_transfer: bool,
    /// `None` when the frontend attribute is absent: the channel stays within each replica.
    pub source_target_pairs: Option<SourceTargetPairs>,
}

/// The frontend attribute naming the replicas a send or recv connects.
pub const SEND_RECV_PAIRS: &str = "_xla_send_recv_source_target_pairs";

impl OpAttrs for ChannelAttrs {
    fn decode(d: &mut Decoder) -> Result<ChannelAttrs> {
        let channel_id = d.or("channel_id", None)?;
        let is_host_transfer = d.or("is_host_transfer", false)?;
        let source_target_pairs = match d.generic_text("frontend_attributes") {
            Some(text) => send_recv_pairs(&text)
                .map_err(|m| Error::invalid("channel.source_target_pairs", m).at_location(d.loc))?,
            None => None,
        };
        Ok(ChannelAttrs {
            channel_id,
            is_host_transfer,
            source_target_pairs,
        })
    }
    fn encode(&self, w: &mut AttrWriter) {
        if let Some(c) = self.channel_id {
            w.field("channel_id", &c);
        }
        if self.is_host_transfer {
            w.field("is_host_transfer", &true);
        }
        // The pairs are printed with the frontend attributes they came from.
    }
}

/// Reads `_xla_send_recv_source_target_pairs="{{0,1},{1,0}}"` out of a frontend-attributes text.
fn send_recv_pairs(text: &str) -> std::result::Result<Option<SourceTargetPairs>, String> {
    let Some(at) = text.find(SEND_RECV_PAIRS) else {
        return Ok(None);
    };
    let rest = &text[at + SEND_RECV_PAIRS.len()..];
    let bad =
        || format!("{SEND_RECV_PAIRS} must be a string of pairs such as \"{{{{0,1}},{{1,0}}}}\"");
    let body = rest
        .trim_start()
        .strip_prefix('=')
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix('"'))
        .and_then(|r| r.split('"').next())
        .ok_or_else(bad)?;
    let mut pairs = vec![];
    for group in body.split('}') {
        let nums: Vec<&str> = group
            .split(|c: char| c == '{' || c == ',' || c.is_whitespace())
            .filter(|p| !p.is_empty())
            .collect();
        match nums.as_slice() {
            [] => {}
            [a, b] => pairs.push((
                a.parse::<i64>().map_err(|_| bad())?,
                b.parse::<i64>().map_err(|_| bad())?,
            )),
            _ => return Err(bad()),
        }
    }
    Ok(Some(pairs))
}

op_attrs! {
    /// `batch-norm-training`, `batch-norm-inference`, `batch-norm-grad`.
    pub struct BatchNormAttrs {
        pub epsilon: f32 = "epsilon",
        pub feature_index: i64 = "feature_index",
    }
}

op_attrs! {
    /// `cholesky`.
    pub struct CholeskyAttrs {
        pub lower: bool = "lower" or false,
    }
}

op_attrs! {
    /// `triangular-solve`.
    pub struct TriangularSolveAttrs {
        pub left_side: bool = "left_side" or false,
        pub lower: bool = "lower" or false,
        pub unit_diagonal: bool = "unit_diagonal" or false,
        /// Required by XLA's verifier; absent, it is refused with the op's rule.
        pub transpose_a: Option<TransposeA> = "transpose_a" or None,
    }
}

op_attrs! {
    /// `fft`.
    pub struct FftAttrs {
        pub fft_type: FftType = "fft_type",
        pub fft_length: Vec<i64> = "fft_length",
    }
}

op_attrs! {
    /// `rng`.
    pub struct RngAttrs {
        pub distribution: RngDistribution = "distribution",
    }
}

op_attrs! {
    /// `rng-bit-generator`.
    pub struct RngBitGeneratorAttrs {
        pub algorithm: RngAlgorithm = "algorithm" or RngAlgorithm::Default,
    }
}

op_attrs! {
    /// `rng-get-and-update-state`.
    pub struct RngStateAttrs {
        pub delta: i64 = "delta",
    }
}

op_attrs! {
    /// `all-reduce`.
    pub struct AllReduceAttrs {
        pub replica_groups: Option<ReplicaGroups> = "replica_groups" or None,
        pub channel_id: Option<i64> = "channel_id" or None,
        pub use_global_device_ids: bool = "use_global_device_ids" or false,
        pub constrain_layout: bool = "constrain_layout" or false,
        pub to_apply: Comp = "to_apply",
    }
}

op_attrs! {
    /// `all-gather`.
    pub struct AllGatherAttrs {
        pub replica_groups: Option<ReplicaGroups> = "replica_groups" or None,
        pub dimensions: Vec<i64> = "dimensions",
        pub channel_id: Option<i64> = "channel_id" or None,
        pub use_global_device_ids: bool = "use_global_device_ids" or false,
        pub constrain_layout: bool = "constrain_layout" or false,
    }
}

op_attrs! {
    /// `all-to-all` (without `dimensions`, the tuple form: operand `i` goes to group member `i`).
    pub struct AllToAllAttrs {
        pub replica_groups: Option<ReplicaGroups> = "replica_groups" or None,
        pub dimensions: Option<Vec<i64>> = "dimensions" or None,
        pub channel_id: Option<i64> = "channel_id" or None,
        pub constrain_layout: bool = "constrain_layout" or false,
    }
}

op_attrs! {
    /// `reduce-scatter`.
    pub struct ReduceScatterAttrs {
        pub replica_groups: Option<ReplicaGroups> = "replica_groups" or None,
        pub dimensions: Vec<i64> = "dimensions",
        pub channel_id: Option<i64> = "channel_id" or None,
        pub use_global_device_ids: bool = "use_global_device_ids" or false,
        pub constrain_layout: bool = "constrain_layout" or false,
        pub to_apply: Comp = "to_apply",
    }
}

op_attrs! {
    /// `collective-permute`.
    pub struct CollectivePermuteAttrs {
        pub source_target_pairs: SourceTargetPairs = "source_target_pairs",
        pub channel_id: Option<i64> = "channel_id" or None,
    }
}

op_attrs! {
    /// `collective-broadcast`.
    pub struct CollectiveBroadcastAttrs {
        pub replica_groups: Option<ReplicaGroups> = "replica_groups" or None,
        pub channel_id: Option<i64> = "channel_id" or None,
    }
}

/// `parameter(N)`: the number is written in the parentheses, not as an attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParameterAttrs {
    pub number: i64,
}

impl OpAttrs for ParameterAttrs {
    fn decode(d: &mut Decoder) -> Result<ParameterAttrs> {
        match d.paren {
            Paren::Number(number) => Ok(ParameterAttrs { number }),
            _ => Err(Error::internal("parameter without a number").at_location(d.loc)),
        }
    }
    fn encode(&self, _: &mut AttrWriter) {}
}

/// `constant(...)`: the value is written in the parentheses.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantAttrs {
    pub literal: Literal,
}

impl OpAttrs for ConstantAttrs {
    fn decode(d: &mut Decoder) -> Result<ConstantAttrs> {
        match std::mem::take(&mut d.paren) {
            Paren::Literal(literal) => Ok(ConstantAttrs { literal }),
            _ => Err(Error::internal("constant without a literal").at_location(d.loc)),
        }
    }
    fn encode(&self, _: &mut AttrWriter) {}
}

impl ComparisonType {
    /// The comparison type `compare` uses when `type=` is absent: the element type's own order.
    pub fn default_for(ty: crate::types::ElementType) -> ComparisonType {
        use crate::types::Category;
        match ty.category() {
            Category::Float | Category::Complex => ComparisonType::Float,
            Category::Signed => ComparisonType::Signed,
            _ => ComparisonType::Unsigned,
        }
    }
}
