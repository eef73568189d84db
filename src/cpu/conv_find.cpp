// Find for forward convolution: each candidate algorithm timed on the
// caller's buffers (conv_algo_search.hpp).
#include "cpu/conv_exec.hpp"

namespace anydnn::cpu {

void find_conv_forward_algos(const Handle &h, const ops::ConvForwardProblem &p, anydnnMathType_t math,
                             const ConvOperands &o, void *workspace, std::size_t ws_bytes, ConvAlgoChoice *out) {
    rank_conv_forward_algos(h, p, math, out);
    time_and_sort(out, ANYDNN_CONVOLUTION_FWD_ALGO_COUNT, ws_bytes,
                  [&](anydnnConvolutionFwdAlgo_t algo) { execute_conv_forward(h, p, algo, o, workspace); });
}

}  // namespace anydnn::cpu
