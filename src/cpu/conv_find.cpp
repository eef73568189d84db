// Find for forward convolution: each candidate algorithm timed on the
// caller's buffers (steady clock, best of a few runs after a warm-up).
#include <algorithm>
#include <chrono>

#include "cpu/conv_exec.hpp"

namespace anydnn::cpu {

namespace {

// Best time in milliseconds of up to kRuns runs after one warm-up; stops
// early once kBudgetMs have been spent, so that slow shapes stay quick.
float time_algo(const Handle &h, const ops::ConvForwardProblem &p, anydnnConvolutionFwdAlgo_t algo,
                const ConvOperands &o, void *workspace) {
    constexpr int kRuns = 3;
    constexpr double kBudgetMs = 60;
    using Clock = std::chrono::steady_clock;
    execute_conv_forward(h, p, algo, o, workspace);
    double best = 0, spent = 0;
    for (int r = 0; r < kRuns && (r == 0 || spent < kBudgetMs); ++r) {
        const auto t0 = Clock::now();
        execute_conv_forward(h, p, algo, o, workspace);
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        best = r == 0 ? ms : std::min(best, ms);
        spent += ms;
    }
    return static_cast<float>(best);
}

// Sort key: the groups of find_conv_forward_algos' order.
int group_of(const ConvAlgoChoice &c) {
    if (c.perf.status == ANYDNN_STATUS_SUCCESS) return c.perf.time >= 0 ? 0 : 1;
    return c.perf.status == ANYDNN_STATUS_ALLOC_FAILED ? 2 : 3;
}

}  // namespace

void find_conv_forward_algos(const Handle &h, const ops::ConvForwardProblem &p, anydnnMathType_t math,
                             const ConvOperands &o, void *workspace, std::size_t ws_bytes, ConvAlgoChoice *out) {
    rank_conv_forward_algos(h, p, math, out);
    // The cheapest that fits: IMPLICIT_GEMM takes every problem without workspace.
    double cheapest = -1;
    for (int i = 0; i < ANYDNN_CONVOLUTION_FWD_ALGO_COUNT; ++i) {
        ConvAlgoChoice &c = out[i];
        if (c.perf.status != ANYDNN_STATUS_SUCCESS) continue;
        if (c.perf.memory > ws_bytes) c.perf.status = ANYDNN_STATUS_ALLOC_FAILED;
        else if (cheapest < 0) cheapest = c.cost;
    }
    for (int i = 0; i < ANYDNN_CONVOLUTION_FWD_ALGO_COUNT; ++i) {
        ConvAlgoChoice &c = out[i];
        if (c.perf.status == ANYDNN_STATUS_SUCCESS && c.cost <= kConvFindCostRatio * cheapest)
            c.perf.time = time_algo(h, p, c.perf.algo, o, workspace);
    }
    std::stable_sort(out, out + ANYDNN_CONVOLUTION_FWD_ALGO_COUNT, [](const ConvAlgoChoice &a, const ConvAlgoChoice &b) {
        const int ga = group_of(a), gb = group_of(b);
        if (ga != gb) return ga < gb;
        return ga == 0 && a.perf.time < b.perf.time;
    });
}

}  // namespace anydnn::cpu
