//! The closed set of HLO opcodes xla-spec knows, as one table. Each row gives the opcode's HLO
//! spelling and the type of its decoded attributes; rows are grouped by op family. From the table
//! the `op_table!` macro generates:
//! - `Opcode`, a plain enum of every opcode (names, families, iteration);
//! - one enum per family (`MovementOp`, `UnaryOp`, ...), whose variants carry their typed
//!   attributes;
//! - `Op`, one variant per family, which is what an instruction holds;
//! - the decoder from an opcode and its parsed attributes to an `Op`, and the printer back.
//!
//! The verifier and the evaluator dispatch on `Op` and then on the family enum, with exhaustive
//! matches and no catch-all arm, so adding a row is a compile error everywhere the new op must be
//! handled.

use super::attrs::*;
use crate::error::Result;

/// `payload_binding!(T, x)` is the pattern `x`; it lets the table macro bind a payload in a
/// pattern only for the rows that have one.
macro_rules! payload_binding {
    ($t:ty, $a:ident) => {
        $a
    };
}

macro_rules! op_table {
    ($(
        $(#[$fm:meta])*
        $family:ident => $fam_enum:ident {
            $( $variant:ident = $name:literal $( ($payload:ty) )? ; )*
        }
    )*) => {
        /// Op families: one verifier module and one evaluator module each (the three element-wise
        /// families share theirs).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Family { $( $(#[$fm])* $family, )* }

        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode { $( $( $variant, )* )* }

        impl Opcode {
            pub const ALL: &'static [Opcode] = &[ $( $( Opcode::$variant, )* )* ];

            /// The HLO text spelling.
            pub fn name(self) -> &'static str {
                match self { $( $( Opcode::$variant => $name, )* )* }
            }

            pub fn from_name(s: &str) -> Option<Opcode> {
                match s { $( $( $name => Some(Opcode::$variant), )* )* _ => None }
            }

            pub fn family(self) -> Family {
                match self { $( $( Opcode::$variant => Family::$family, )* )* }
            }
        }

        $(
            $(#[$fm])*
            #[derive(Clone, Debug, PartialEq)]
            pub enum $fam_enum { $( $variant $( (Box<$payload>) )?, )* }

            impl $fam_enum {
                pub fn opcode(&self) -> Opcode {
                    match self { $( $fam_enum::$variant { .. } => Opcode::$variant, )* }
                }
            }

            impl std::fmt::Display for $fam_enum {
                fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str(self.opcode().name())
                }
            }
        )*

        /// An instruction's operation with its typed attributes.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Op { $( $family($fam_enum), )* }

        impl Op {
            pub fn opcode(&self) -> Opcode {
                match self { $( Op::$family(x) => x.opcode(), )* }
            }

            /// Decodes the attributes of an `opcode` instruction into its typed op.
            pub fn decode(opcode: Opcode, d: &mut Decoder) -> Result<Op> {
                Ok(match opcode {
                    $( $( Opcode::$variant => Op::$family(
                        $fam_enum::$variant $( (Box::new(<$payload as OpAttrs>::decode(d)?)) )?
                    ), )* )*
                })
            }

            /// The sub-computations the op calls, in attribute order.
            pub fn called_computations(&self) -> Vec<crate::hlo::ast::CompId> {
                let mut out = vec![];
                match self {
                    $( $(
                        Op::$family($fam_enum::$variant $( (payload_binding!($payload, a)) )?) => {
                            $( <$payload as OpAttrs>::comps(a, &mut out); )?
                        }
                    )* )*
                }
                out
            }

            /// Writes the op's own attributes (`, key=value` each).
            pub fn encode(&self, w: &mut AttrWriter) {
                match self {
                    $( $(
                        Op::$family($fam_enum::$variant $( (payload_binding!($payload, a)) )?) => {
                            $( <$payload as OpAttrs>::encode(a, w); )?
                        }
                    )* )*
                }
            }
        }
    };
}

op_table! {
    /// parameter, constant, iota, tuple, get-tuple-element, broadcast, reshape, transpose, slices,
    /// concatenate, pad, reverse, copy, bitcast, dynamic sizes.
    Movement => MovementOp {
        Parameter = "parameter" (ParameterAttrs);
        Constant = "constant" (ConstantAttrs);
        Iota = "iota" (IotaAttrs);
        Tuple = "tuple";
        GetTupleElement = "get-tuple-element" (IndexAttrs);
        Broadcast = "broadcast" (BroadcastAttrs);
        Reshape = "reshape" (ReshapeAttrs);
        DynamicReshape = "dynamic-reshape";
        Transpose = "transpose" (DimsAttrs);
        Reverse = "reverse" (DimsAttrs);
        Slice = "slice" (SliceAttrs);
        DynamicSlice = "dynamic-slice" (DynamicSliceAttrs);
        DynamicUpdateSlice = "dynamic-update-slice";
        Concatenate = "concatenate" (DimsAttrs);
        Pad = "pad" (PadAttrs);
        Copy = "copy";
        Bitcast = "bitcast";
        GetDimensionSize = "get-dimension-size" (DimsAttrs);
        SetDimensionSize = "set-dimension-size" (DimsAttrs);
    }

    /// Element-wise functions of one operand.
    Unary => UnaryOp {
        Abs = "abs";
        Cbrt = "cbrt";
        Ceil = "ceil";
        Clz = "count-leading-zeros";
        Cos = "cosine";
        Erf = "erf";
        Exp = "exponential";
        Expm1 = "exponential-minus-one";
        Floor = "floor";
        Imag = "imag";
        IsFinite = "is-finite";
        Log = "log";
        Log1p = "log-plus-one";
        Logistic = "logistic";
        Negate = "negate";
        Not = "not";
        PopulationCount = "popcnt";
        Real = "real";
        RoundNearestAfz = "round-nearest-afz";
        RoundNearestEven = "round-nearest-even";
        Rsqrt = "rsqrt";
        Sign = "sign";
        Sin = "sine";
        Sqrt = "sqrt";
        Tan = "tan";
        Tanh = "tanh";
    }

    /// Element-wise functions of two operands of one shape.
    Binary => BinaryOp {
        Add = "add";
        Subtract = "subtract";
        Multiply = "multiply";
        Divide = "divide";
        Power = "power";
        Remainder = "remainder";
        Maximum = "maximum";
        Minimum = "minimum";
        And = "and";
        Or = "or";
        Xor = "xor";
        ShiftLeft = "shift-left";
        ShiftRightArithmetic = "shift-right-arithmetic";
        ShiftRightLogical = "shift-right-logical";
        Atan2 = "atan2";
        Complex = "complex";
    }

    /// Comparison, select, clamp, conversions and reduce-precision.
    Elementwise => ElementwiseOp {
        Compare = "compare" (CompareAttrs);
        Select = "select";
        Clamp = "clamp";
        Convert = "convert";
        BitcastConvert = "bitcast-convert";
        ReducePrecision = "reduce-precision" (ReducePrecisionAttrs);
    }

    /// reduce, reduce-window, select-and-scatter, map, sort, top-k.
    Reduction => ReductionOp {
        Reduce = "reduce" (ReduceAttrs);
        ReduceWindow = "reduce-window" (ReduceWindowAttrs);
        SelectAndScatter = "select-and-scatter" (SelectAndScatterAttrs);
        Map = "map" (MapAttrs);
        Sort = "sort" (SortAttrs);
        TopK = "topk" (TopKAttrs);
    }

    /// gather, scatter.
    Indexing => IndexingOp {
        Gather = "gather" (GatherAttrs);
        Scatter = "scatter" (ScatterAttrs);
    }

    /// dot, convolution.
    Linalg => LinalgOp {
        Dot = "dot" (DotAttrs);
        Convolution = "convolution" (ConvolutionAttrs);
    }

    /// call, while, conditional, tokens, custom-call, infeed/outfeed, send/recv.
    Control => ControlOp {
        Call = "call" (CallAttrs);
        Fusion = "fusion" (FusionAttrs);
        AsyncStart = "async-start" (AsyncStartAttrs);
        AsyncUpdate = "async-update";
        AsyncDone = "async-done";
        CopyStart = "copy-start";
        CopyDone = "copy-done";
        While = "while" (WhileAttrs);
        Conditional = "conditional" (Branches);
        AfterAll = "after-all";
        AddDependency = "add-dependency";
        OptimizationBarrier = "opt-barrier";
        CustomCall = "custom-call" (CustomCallAttrs);
        Infeed = "infeed" (InfeedAttrs);
        Outfeed = "outfeed" (OutfeedAttrs);
        Send = "send" (ChannelAttrs);
        SendDone = "send-done" (ChannelAttrs);
        Recv = "recv" (ChannelAttrs);
        RecvDone = "recv-done" (ChannelAttrs);
    }

    /// batch-norm, cholesky, triangular-solve, fft, rng.
    Numerics => NumericsOp {
        BatchNormTraining = "batch-norm-training" (BatchNormAttrs);
        BatchNormInference = "batch-norm-inference" (BatchNormAttrs);
        BatchNormGrad = "batch-norm-grad" (BatchNormAttrs);
        Cholesky = "cholesky" (CholeskyAttrs);
        TriangularSolve = "triangular-solve" (TriangularSolveAttrs);
        Fft = "fft" (FftAttrs);
        Rng = "rng" (RngAttrs);
        RngBitGenerator = "rng-bit-generator" (RngBitGeneratorAttrs);
        RngGetAndUpdateState = "rng-get-and-update-state" (RngStateAttrs);
    }

    /// replica-id, partition-id and the collectives.
    Collective => CollectiveOp {
        ReplicaId = "replica-id";
        PartitionId = "partition-id";
        AllReduce = "all-reduce" (AllReduceAttrs);
        AllGather = "all-gather" (AllGatherAttrs);
        AllToAll = "all-to-all" (AllToAllAttrs);
        ReduceScatter = "reduce-scatter" (ReduceScatterAttrs);
        CollectivePermute = "collective-permute" (CollectivePermuteAttrs);
        AllReduceStart = "all-reduce-start" (AllReduceAttrs);
        AllReduceDone = "all-reduce-done";
        AllGatherStart = "all-gather-start" (AllGatherAttrs);
        AllGatherDone = "all-gather-done";
        CollectivePermuteStart = "collective-permute-start" (CollectivePermuteAttrs);
        CollectivePermuteDone = "collective-permute-done";
        CollectiveBroadcast = "collective-broadcast" (CollectiveBroadcastAttrs);
    }
}

// The families without attributes are plain tags.
impl Copy for UnaryOp {}
impl Copy for BinaryOp {}

impl Opcode {
    /// Opcodes whose result shape the text must state (XLA's `CanInferShape` is false for them).
    pub fn requires_explicit_shape(self) -> bool {
        use Opcode::*;
        matches!(
            self,
            Constant
                | Parameter
                | Iota
                | Convert
                | BitcastConvert
                | Bitcast
                | CustomCall
                | Infeed
                | Outfeed
                | Rng
                | RngBitGenerator
                | RngGetAndUpdateState
                | ReducePrecision
                | Reshape
                | Slice
                | DynamicSlice
                | DynamicUpdateSlice
                | DynamicReshape
                | AllReduce
                | AllGather
                | AllToAll
                | ReduceScatter
                | CollectivePermute
                | CollectiveBroadcast
                | Send
                | SendDone
                | Recv
                | RecvDone
        )
    }

    /// Ops whose effect is more than their result (feeds, channels, generator state).
    pub fn has_side_effect(self) -> bool {
        use Opcode::*;
        matches!(
            self,
            Infeed | Outfeed | Send | SendDone | Recv | RecvDone | Rng | RngGetAndUpdateState
        )
    }
}

impl std::fmt::Display for Opcode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &op in Opcode::ALL {
            assert_eq!(Opcode::from_name(op.name()), Some(op));
        }
        assert_eq!(Opcode::from_name("sin"), None);
    }
}
