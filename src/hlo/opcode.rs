//! The closed set of HLO opcodes xla-spec knows. Each has one HLO spelling and one family; the
//! verifier and the evaluator both dispatch on this enum with exhaustive matches, so adding an
//! opcode is a compile error everywhere it must be handled.

/// Op families: one verifier module and one evaluator module each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// parameter, constant, iota, tuple, get-tuple-element, broadcast, reshape, transpose, slices,
    /// concatenate, pad, reverse, copy, bitcast, dynamic sizes.
    Movement,
    /// Unary, binary, comparison, select, clamp, conversions, reduce-precision.
    Elementwise,
    /// reduce, reduce-window, select-and-scatter, map, sort, top-k.
    Reduction,
    /// gather, scatter.
    Indexing,
    /// dot, convolution.
    Linalg,
    /// call, while, conditional, tokens, custom-call, infeed/outfeed, send/recv.
    Control,
    /// batch-norm, cholesky, triangular-solve, fft, rng.
    Numerics,
    /// replica-id and the collectives.
    Collective,
}

macro_rules! opcodes {
    ($( $variant:ident = $name:literal, $family:ident; )*) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode { $($variant),* }

        impl Opcode {
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant),*];

            /// The HLO text spelling.
            pub fn name(self) -> &'static str {
                match self { $(Opcode::$variant => $name),* }
            }

            pub fn from_name(s: &str) -> Option<Opcode> {
                match s { $($name => Some(Opcode::$variant),)* _ => None }
            }

            pub fn family(self) -> Family {
                match self { $(Opcode::$variant => Family::$family),* }
            }
        }
    };
}

opcodes! {
    // Data movement and structure.
    Parameter = "parameter", Movement;
    Constant = "constant", Movement;
    Iota = "iota", Movement;
    Tuple = "tuple", Movement;
    GetTupleElement = "get-tuple-element", Movement;
    Broadcast = "broadcast", Movement;
    Reshape = "reshape", Movement;
    DynamicReshape = "dynamic-reshape", Movement;
    Transpose = "transpose", Movement;
    Reverse = "reverse", Movement;
    Slice = "slice", Movement;
    DynamicSlice = "dynamic-slice", Movement;
    DynamicUpdateSlice = "dynamic-update-slice", Movement;
    Concatenate = "concatenate", Movement;
    Pad = "pad", Movement;
    Copy = "copy", Movement;
    Bitcast = "bitcast", Movement;
    GetDimensionSize = "get-dimension-size", Movement;
    SetDimensionSize = "set-dimension-size", Movement;

    // Element-wise unary.
    Abs = "abs", Elementwise;
    Cbrt = "cbrt", Elementwise;
    Ceil = "ceil", Elementwise;
    Clz = "count-leading-zeros", Elementwise;
    Cos = "cosine", Elementwise;
    Erf = "erf", Elementwise;
    Exp = "exponential", Elementwise;
    Expm1 = "exponential-minus-one", Elementwise;
    Floor = "floor", Elementwise;
    Imag = "imag", Elementwise;
    IsFinite = "is-finite", Elementwise;
    Log = "log", Elementwise;
    Log1p = "log-plus-one", Elementwise;
    Logistic = "logistic", Elementwise;
    Negate = "negate", Elementwise;
    Not = "not", Elementwise;
    PopulationCount = "popcnt", Elementwise;
    Real = "real", Elementwise;
    RoundNearestAfz = "round-nearest-afz", Elementwise;
    RoundNearestEven = "round-nearest-even", Elementwise;
    Rsqrt = "rsqrt", Elementwise;
    Sign = "sign", Elementwise;
    Sin = "sine", Elementwise;
    Sqrt = "sqrt", Elementwise;
    Tan = "tan", Elementwise;
    Tanh = "tanh", Elementwise;
    // Element-wise binary.
    Add = "add", Elementwise;
    Subtract = "subtract", Elementwise;
    Multiply = "multiply", Elementwise;
    Divide = "divide", Elementwise;
    Power = "power", Elementwise;
    Remainder = "remainder", Elementwise;
    Maximum = "maximum", Elementwise;
    Minimum = "minimum", Elementwise;
    And = "and", Elementwise;
    Or = "or", Elementwise;
    Xor = "xor", Elementwise;
    ShiftLeft = "shift-left", Elementwise;
    ShiftRightArithmetic = "shift-right-arithmetic", Elementwise;
    ShiftRightLogical = "shift-right-logical", Elementwise;
    Atan2 = "atan2", Elementwise;
    Complex = "complex", Elementwise;
    Compare = "compare", Elementwise;
    // Element-wise ternary and conversions.
    Select = "select", Elementwise;
    Clamp = "clamp", Elementwise;
    Convert = "convert", Elementwise;
    BitcastConvert = "bitcast-convert", Elementwise;
    ReducePrecision = "reduce-precision", Elementwise;

    // Reductions, windows, map, sort.
    Reduce = "reduce", Reduction;
    ReduceWindow = "reduce-window", Reduction;
    SelectAndScatter = "select-and-scatter", Reduction;
    Map = "map", Reduction;
    Sort = "sort", Reduction;
    TopK = "topk", Reduction;

    // Indexing.
    Gather = "gather", Indexing;
    Scatter = "scatter", Indexing;

    // Linear algebra kernels.
    Dot = "dot", Linalg;
    Convolution = "convolution", Linalg;

    // Computations, control flow and side effects.
    Call = "call", Control;
    While = "while", Control;
    Conditional = "conditional", Control;
    AfterAll = "after-all", Control;
    AddDependency = "add-dependency", Control;
    OptimizationBarrier = "opt-barrier", Control;
    CustomCall = "custom-call", Control;
    Infeed = "infeed", Control;
    Outfeed = "outfeed", Control;
    Send = "send", Control;
    SendDone = "send-done", Control;
    Recv = "recv", Control;
    RecvDone = "recv-done", Control;

    // Numerics.
    BatchNormTraining = "batch-norm-training", Numerics;
    BatchNormInference = "batch-norm-inference", Numerics;
    BatchNormGrad = "batch-norm-grad", Numerics;
    Cholesky = "cholesky", Numerics;
    TriangularSolve = "triangular-solve", Numerics;
    Fft = "fft", Numerics;
    Rng = "rng", Numerics;
    RngBitGenerator = "rng-bit-generator", Numerics;
    RngGetAndUpdateState = "rng-get-and-update-state", Numerics;

    // Replicas and collectives.
    ReplicaId = "replica-id", Collective;
    PartitionId = "partition-id", Collective;
    AllReduce = "all-reduce", Collective;
    AllGather = "all-gather", Collective;
    AllToAll = "all-to-all", Collective;
    ReduceScatter = "reduce-scatter", Collective;
    CollectivePermute = "collective-permute", Collective;
    CollectiveBroadcast = "collective-broadcast", Collective;
}

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

    /// Does this op name sub-computations through attributes?
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
