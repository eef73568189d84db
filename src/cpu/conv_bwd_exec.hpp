// The CPU backend of backward convolution (data and filter): which
// algorithms take a problem, their workspace, their ranking, running one.
#pragma once

#include <cstddef>

#include "anydnn/anydnn_cnn.h"
#include "core/handle.hpp"
#include "cpu/conv.hpp"
#include "cpu/conv_algo_search.hpp"
#include "ops/conv_problem.hpp"

namespace anydnn::cpu {

using ConvBwdDataAlgoChoice = ConvAlgoChoiceOf<anydnnConvolutionBwdDataAlgoPerf_t>;
using ConvBwdFilterAlgoChoice = ConvAlgoChoiceOf<anydnnConvolutionBwdFilterAlgoPerf_t>;

// Workspace bytes; NOT_SUPPORTED (with a message) when algo does not take p.
Status conv_bwd_data_workspace(const Handle &h, const ops::ConvBackwardProblem &p,
                               anydnnConvolutionBwdDataAlgo_t algo, std::size_t *bytes);
Status conv_bwd_filter_workspace(const Handle &h, const ops::ConvBackwardProblem &p,
                                 anydnnConvolutionBwdFilterAlgo_t algo, std::size_t *bytes);

// Runs algo, which takes p, with a workspace of the size above.
void execute_conv_bwd_data(const Handle &h, const ops::ConvBackwardProblem &p, anydnnConvolutionBwdDataAlgo_t algo,
                           const ConvBwdDataOperands &o, void *workspace);
void execute_conv_bwd_filter(const Handle &h, const ops::ConvBackwardProblem &p,
                             anydnnConvolutionBwdFilterAlgo_t algo, const ConvBwdFilterOperands &o, void *workspace);

// Every algorithm of the direction (its ALGO_COUNT entries) by modeled
// cost, as rank_conv_forward_algos.
void rank_conv_bwd_data_algos(const Handle &h, const ops::ConvBackwardProblem &p, anydnnMathType_t math,
                              ConvBwdDataAlgoChoice *out);
void rank_conv_bwd_filter_algos(const Handle &h, const ops::ConvBackwardProblem &p, anydnnMathType_t math,
                                ConvBwdFilterAlgoChoice *out);

// Find on the caller's operands (the output is overwritten), as
// find_conv_forward_algos.
void find_conv_bwd_data_algos(const Handle &h, const ops::ConvBackwardProblem &p, anydnnMathType_t math,
                              const ConvBwdDataOperands &o, void *workspace, std::size_t ws_bytes,
                              ConvBwdDataAlgoChoice *out);
void find_conv_bwd_filter_algos(const Handle &h, const ops::ConvBackwardProblem &p, anydnnMathType_t math,
                                const ConvBwdFilterOperands &o, void *workspace, std::size_t ws_bytes,
                                ConvBwdFilterAlgoChoice *out);

}  // namespace anydnn::cpu
