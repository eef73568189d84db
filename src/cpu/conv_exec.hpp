// The CPU backend of forward convolution: which algorithms take a problem,
// their workspace, their ranking, and running one.
#pragma once

#include <cstddef>

#include "anydnn/anydnn_cnn.h"
#include "core/handle.hpp"
#include "cpu/conv.hpp"
#include "cpu/conv_algo_search.hpp"
#include "ops/conv_problem.hpp"

namespace anydnn::cpu {

// The workspace bytes algo needs for p on h. NOT_SUPPORTED, with a message
// saying why, when algo does not take p.
Status conv_forward_workspace(const Handle &h, const ops::ConvForwardProblem &p, anydnnConvolutionFwdAlgo_t algo,
                              std::size_t *bytes);

// Runs algo, which takes p, with a workspace of conv_forward_workspace bytes.
void execute_conv_forward(const Handle &h, const ops::ConvForwardProblem &p, anydnnConvolutionFwdAlgo_t algo,
                          const ConvOperands &o, void *workspace);

using ConvAlgoChoice = ConvAlgoChoiceOf<anydnnConvolutionFwdAlgoPerf_t>;

// Every algorithm (ANYDNN_CONVOLUTION_FWD_ALGO_COUNT entries into out):
// those that take p by modeled cost, cheapest first, then the others with
// status NOT_SUPPORTED.
void rank_conv_forward_algos(const Handle &h, const ops::ConvForwardProblem &p, anydnnMathType_t math,
                             ConvAlgoChoice *out);

// Find: runs the algorithms that take p on o (y is overwritten) with the
// given workspace, and fills out (ANYDNN_CONVOLUTION_FWD_ALGO_COUNT entries)
// in time_and_sort's order (conv_algo_search.hpp).
void find_conv_forward_algos(const Handle &h, const ops::ConvForwardProblem &p, anydnnMathType_t math,
                             const ConvOperands &o, void *workspace, std::size_t ws_bytes, ConvAlgoChoice *out);

}  // namespace anydnn::cpu
