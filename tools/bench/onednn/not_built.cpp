// Compiled instead of the oneDNN adaptors when CMake did not find oneDNN:
// every oneDNN case is Unsupported, so the tool runs anydnn alone.
#include "core/error.hpp"
#include "onednn/adaptor.hpp"

namespace anydnn_bench::onednn {
namespace {

[[noreturn]] void not_built() { throw Unsupported("oneDNN: not built in"); }

}  // namespace

std::string version() { return "oneDNN: not built in"; }

std::unique_ptr<Case> eltwise_case(const EltwiseProblem &, const Inputs &) { not_built(); }
std::unique_ptr<Case> binary_case(const BinaryProblem &, const Inputs &) { not_built(); }
std::unique_ptr<Case> transform_case(const TransformProblem &, const Inputs &) { not_built(); }
std::unique_ptr<Case> softmax_case(const SoftmaxProblem &, const Inputs &) { not_built(); }
std::unique_ptr<Case> reduction_case(const ReductionProblem &, const Inputs &) { not_built(); }
std::unique_ptr<Case> conv_case(const ConvProblem &, const Inputs &, bool) { not_built(); }
std::unique_ptr<Case> pool_case(const PoolProblem &, const Inputs &) { not_built(); }
std::unique_ptr<Case> lrn_case(const LrnProblem &, const Inputs &) { not_built(); }
std::unique_ptr<Case> norm_case(const NormBenchProblem &, const Inputs &) { not_built(); }
std::unique_ptr<Case> rnn_case(const RnnProblem &, const Inputs &) { not_built(); }

}  // namespace anydnn_bench::onednn
