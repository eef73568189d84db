// Runs one planned problem: inputs, the anydnn case and (with
// --compare=onednn) the oneDNN case, then corr and/or perf mode.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "core/anydnn_util.hpp"
#include "core/cli.hpp"
#include "core/peak.hpp"
#include "core/timing.hpp"

namespace anydnn_bench {

enum class Outcome { passed, failed, skipped };

struct Result {
    std::string driver, repro;
    int threads = 0;
    double bytes = 0;
    double flops = 0;  // 0: no GFLOP/s column
    int occurrences = 0;  // times in its network (name ..._xN); 0: not in the network total
    Outcome outcome = Outcome::passed;
    std::string message;  // why it failed or was skipped

    bool perf = false;
    Stats anydnn;
    bool has_onednn = false;  // oneDNN timed
    Stats onednn;
    bool has_onednn_reorder = false;  // oneDNN timed with its layout reorders (conv)
    Stats onednn_reorder;
    std::string onednn_note;  // why oneDNN was not run, when it was asked for
    std::optional<double> bandwidth_gbs;  // the --peak reference for this thread count
    std::optional<double> fma_gflops;     // and its fp32 FMA peak, for %peak (compute-bound rows)

    bool corr = false;
    std::string corr_ref;  // "oneDNN" or "anydnn generic"
    double corr_error = 0, corr_tolerance = 0;
};

// State shared by the problems of one run: the handles, the peak cache.
class Session {
public:
    Session(std::string peak_file, int default_threads);
    Result run(const PlannedProblem &p);
    int threads(const RunSettings &s) const { return s.threads > 0 ? s.threads : default_threads_; }
    std::optional<double> bandwidth(int threads);
    std::optional<double> fma_peak(int threads);

private:
    Handle main_;
    std::unique_ptr<Handle> generic_;  // the reference of corr mode without oneDNN
    std::string peak_file_;
    int default_threads_;
    std::map<int, std::optional<Peak>> peaks_;  // the cache file's entries, read once per thread count
    uint64_t seed_ = 0x5eed;

    const std::optional<Peak> &peak(int threads);
    void correctness(const Problem &p, Case &a, Case *onednn, const Inputs &in, int threads, Result &r);
};

}  // namespace anydnn_bench
