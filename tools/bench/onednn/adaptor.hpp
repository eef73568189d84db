// The oneDNN side of each driver: the same problem as a oneDNN primitive on
// the same input buffers. Compiled with -DANYDNN_BENCH_WITH_ONEDNN when CMake
// finds oneDNN (onednn/*.cpp); otherwise onednn/not_built.cpp answers every
// call with Unsupported("oneDNN: not built in").
#pragma once

#include <memory>
#include <string>

#include "core/driver.hpp"

namespace anydnn_bench {

struct EltwiseProblem;
struct BinaryProblem;
struct TransformProblem;
struct SoftmaxProblem;
struct ReductionProblem;
struct ConvProblem;
struct PoolProblem;
struct LrnProblem;
struct NormBenchProblem;
struct RnnProblem;

namespace onednn {

// CMake defines ANYDNN_BENCH_WITH_ONEDNN for the whole tool when it found
// oneDNN.
inline constexpr bool kBuiltIn =
#if defined(ANYDNN_BENCH_WITH_ONEDNN)
    true;
#else
    false;
#endif

// e.g. "oneDNN 3.2.0 (..., CPU runtime OpenMP)"; "oneDNN: not built in" without it.
std::string version();

std::unique_ptr<Case> eltwise_case(const EltwiseProblem &p, const Inputs &in);
std::unique_ptr<Case> binary_case(const BinaryProblem &p, const Inputs &in);
std::unique_ptr<Case> transform_case(const TransformProblem &p, const Inputs &in);
std::unique_ptr<Case> softmax_case(const SoftmaxProblem &p, const Inputs &in);
std::unique_ptr<Case> reduction_case(const ReductionProblem &p, const Inputs &in);
// Every --dir (BWD_B as a reduction). timed_reorders: run() also reorders
// the user's activations (src, diff_dst) into oneDNN's layouts and the output
// back, as a framework keeping plain tensors pays on every call (the weights
// stay reordered once: frameworks cache them).
std::unique_ptr<Case> conv_case(const ConvProblem &p, const Inputs &in, bool timed_reorders = false);
std::unique_ptr<Case> pool_case(const PoolProblem &p, const Inputs &in);
std::unique_ptr<Case> lrn_case(const LrnProblem &p, const Inputs &in);
// --bnorm and --lnorm: batch_normalization / layer_normalization, forward or backward.
std::unique_ptr<Case> norm_case(const NormBenchProblem &p, const Inputs &in);
// --rnn: lstm_forward (with a projection for dic < dhc), lbr_gru_forward
// (cuDNN's GRU) or vanilla_rnn_forward, inference or training.
std::unique_ptr<Case> rnn_case(const RnnProblem &p, const Inputs &in);

}  // namespace onednn
}  // namespace anydnn_bench
