// Choosing among convolution algorithms, the same way in every direction
// (forward, backward data, backward filter): a model ranking for the _v7
// queries, a timed run for Find. Each direction supplies its perf struct
// (cuDNN's anydnnConvolution*AlgoPerf_t) and how to run one algorithm.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>

#include "anydnn/anydnn_cnn.h"
#include "core/status.hpp"

namespace anydnn::cpu {

// One algorithm as the heuristic sees it: its perf entry and its modeled
// cost, in units of "a GEMM at full speed" (only ratios mean anything).
template <class Perf>
struct ConvAlgoChoiceOf {
    Perf perf;
    double cost;
};

// Find runs only the algorithms the model puts within this factor of the
// cheapest one that fits; the others are listed untimed (time -1).
constexpr double kConvFindCostRatio = 10;

// The supported ones (status SUCCESS) first, cheapest first; stable.
template <class Choice>
void sort_by_modeled_cost(Choice *c, int count) {
    std::stable_sort(c, c + count, [](const Choice &a, const Choice &b) {
        const bool sa = a.perf.status == ANYDNN_STATUS_SUCCESS, sb = b.perf.status == ANYDNN_STATUS_SUCCESS;
        if (sa != sb) return sa;
        return sa && a.cost < b.cost;
    });
}

// Fills out[0, count) with every algorithm of the direction (ws(algo,
// &bytes) says whether it takes the problem and its workspace, cost(algo)
// its modeled cost), then sorts them by modeled cost. Time is -1; every
// CPU algorithm is deterministic. The unsupported ones' messages are dropped.
template <class Perf, class Workspace, class Cost>
void rank_by_model(ConvAlgoChoiceOf<Perf> *out, int count, anydnnMathType_t math, Workspace &&ws, Cost &&cost) {
    using Algo = decltype(Perf::algo);
    for (int i = 0; i < count; ++i) {
        const auto algo = static_cast<Algo>(i);
        ConvAlgoChoiceOf<Perf> &c = out[i];
        c.perf = Perf{};
        c.perf.algo = algo;
        c.perf.time = -1;
        c.perf.determinism = ANYDNN_DETERMINISTIC;
        c.perf.mathType = math;
        std::size_t bytes = 0;
        c.perf.status = ws(algo, &bytes);
        c.perf.memory = c.perf.status == ANYDNN_STATUS_SUCCESS ? bytes : 0;
        c.cost = c.perf.status == ANYDNN_STATUS_SUCCESS ? cost(algo) : 0;
    }
    clear_pending_message();
    sort_by_modeled_cost(out, count);
}

// Best time in milliseconds of up to 3 runs of run() after one warm-up;
// stops early once 60 ms have been spent, so that slow shapes stay quick.
template <class Run>
float time_best_of(Run &&run) {
    constexpr int kRuns = 3;
    constexpr double kBudgetMs = 60;
    using Clock = std::chrono::steady_clock;
    run();
    double best = 0, spent = 0;
    for (int r = 0; r < kRuns && (r == 0 || spent < kBudgetMs); ++r) {
        const auto t0 = Clock::now();
        run();
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        best = r == 0 ? ms : std::min(best, ms);
        spent += ms;
    }
    return static_cast<float>(best);
}

// Find on model-ranked choices: those needing more than ws_bytes get
// ALLOC_FAILED, those within kConvFindCostRatio of the cheapest that fits
// are timed with run(algo); then the order is: timed (fastest first),
// untimed (time -1), ALLOC_FAILED, unsupported.
template <class Choice, class Run>
void time_and_sort(Choice *c, int count, std::size_t ws_bytes, Run &&run) {
    double cheapest = -1;
    for (int i = 0; i < count; ++i) {
        if (c[i].perf.status != ANYDNN_STATUS_SUCCESS) continue;
        if (c[i].perf.memory > ws_bytes) c[i].perf.status = ANYDNN_STATUS_ALLOC_FAILED;
        else if (cheapest < 0) cheapest = c[i].cost;
    }
    for (int i = 0; i < count; ++i)
        if (c[i].perf.status == ANYDNN_STATUS_SUCCESS && c[i].cost <= kConvFindCostRatio * cheapest)
            c[i].perf.time = time_best_of([&] { run(c[i].perf.algo); });
    auto group_of = [](const Choice &x) {
        if (x.perf.status == ANYDNN_STATUS_SUCCESS) return x.perf.time >= 0 ? 0 : 1;
        return x.perf.status == ANYDNN_STATUS_ALLOC_FAILED ? 2 : 3;
    };
    std::stable_sort(c, c + count, [&](const Choice &a, const Choice &b) {
        const int ga = group_of(a), gb = group_of(b);
        if (ga != gb) return ga < gb;
        return ga == 0 && a.perf.time < b.perf.time;
    });
}

}  // namespace anydnn::cpu
