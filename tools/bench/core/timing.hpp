// Timing: warm-up, then runs alternating between the libraries until each
// has its minimum time and count; median and spread per library.
#pragma once

#include <functional>
#include <vector>

namespace anydnn_bench {

struct Stats {
    double median_ms = 0, min_ms = 0, max_ms = 0;
    int runs = 0;
};

struct TimingSettings {
    double min_time_s = 0.5;
    int min_runs = 10;
};

// Times each function: a warm-up of a few calls each, then rounds of one
// call per function, in turn, until every function has at least min_runs
// calls and min_time_s of measured time. Alternating in one process puts
// the libraries under the same conditions (clock, cache, other load).
std::vector<Stats> time_alternating(const std::vector<std::function<void()>> &fns, const TimingSettings &s);

Stats summarize(std::vector<double> samples_ms);

}  // namespace anydnn_bench
