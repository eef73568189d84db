#include "core/timing.hpp"

#include <algorithm>
#include <chrono>

namespace anydnn_bench {
namespace {

// Fast problems would otherwise collect millions of samples.
constexpr int kMaxRuns = 100000;
constexpr int kWarmupRuns = 2;

double now_ms() {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

}  // namespace

Stats summarize(std::vector<double> samples_ms) {
    Stats s;
    if (samples_ms.empty()) return s;
    std::sort(samples_ms.begin(), samples_ms.end());
    const size_t n = samples_ms.size();
    s.runs = static_cast<int>(n);
    s.min_ms = samples_ms.front();
    s.max_ms = samples_ms.back();
    s.median_ms = n % 2 ? samples_ms[n / 2] : 0.5 * (samples_ms[n / 2 - 1] + samples_ms[n / 2]);
    return s;
}

std::vector<Stats> time_alternating(const std::vector<std::function<void()>> &fns, const TimingSettings &s) {
    for (int i = 0; i < kWarmupRuns; ++i)
        for (const auto &fn : fns) fn();
    std::vector<std::vector<double>> samples(fns.size());
    std::vector<double> total(fns.size(), 0.0);
    const double min_ms = s.min_time_s * 1e3;
    auto done = [&] {
        for (size_t f = 0; f < fns.size(); ++f) {
            const int runs = static_cast<int>(samples[f].size());
            if (runs < kMaxRuns && (runs < s.min_runs || total[f] < min_ms)) return false;
        }
        return true;
    };
    while (!done()) {
        for (size_t f = 0; f < fns.size(); ++f) {
            const double t0 = now_ms();
            fns[f]();
            const double dt = now_ms() - t0;
            samples[f].push_back(dt);
            total[f] += dt;
        }
    }
    std::vector<Stats> out;
    for (auto &v : samples) out.push_back(summarize(std::move(v)));
    return out;
}

}  // namespace anydnn_bench
