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

// WINOGRAD_NONFUSED's plan (NOT_SUPPORTED with a message unless the filter
// is 2-D 3x3, stride and dilation 1) and its modeled cost in the units of
// the forward model (FLOPs at the GEMM's speed). Backward data runs it too,
// as the forward convolution of dy with the turned filter (conv_bwd_exec.cpp).
Status plan_winograd(const Handle &h, const ops::ConvForwardProblem &p, ConvWinogradPlan *out);
double winograd_cost(const ops::ConvGeometry &g, const ConvWinogradPlan &pl);

// NOT_SUPPORTED, with a message, unless F(4x4, 3x3) takes g: a 2-D 3x3
// filter, stride and dilation 1.
Status winograd_takes(const ops::ConvGeometry &g);

// The stride, in values of esize bytes, between Winograd's 36 point
// matrices of elems values each: 64 bytes past a multiple of 4 KiB.
int64_t winograd_point_stride(int64_t elems, std::size_t esize);

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
