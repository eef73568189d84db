// This machine's fp32 FMA peak and memory bandwidth (--peak), measured once
// and cached in a small text file so that every driver can print its
// results as % of them.
#pragma once

#include <optional>
#include <string>

namespace anydnn_bench {

struct Peak {
    int threads = 0;
    std::string fma_isa;
    double fma_gflops = 0;
    int array_mib = 0;
    // STREAM's kernels and byte counts (copy: 2 arrays, triad: 3 arrays),
    // with ordinary and with non-temporal stores. Ordinary stores also read
    // each destination line first (read for ownership), traffic that the
    // counts leave out, as STREAM does.
    double copy_gbs = 0, copy_nt_gbs = 0, triad_gbs = 0, triad_nt_gbs = 0;

    // The bandwidth the memory-bound results are compared with: the best
    // kernel, i.e. what this machine demonstrably moves.
    double bandwidth_gbs() const;
};

// The CPU's brand string (cpuid), e.g. "AMD EPYC 9654 96-Core Processor".
std::string cpu_model();
int cpu_count();
// How many other threads want a CPU right now (Linux: the runnable count of
// /proc/loadavg less this one, averaged over a few samples), negative where
// the OS does not tell. Timings taken while other processes run are not
// worth much, and the tool says so.
double other_runnable_threads();

// $XDG_CACHE_HOME/anydnn/bench-peak.txt, else ~/.cache/anydnn/bench-peak.txt,
// else bench-peak.txt in the working directory.
std::string default_peak_file();

// min_time_s: roughly the time of each FMA measurement (best of 5).
Peak measure_peak(int threads, int array_mib, double min_time_s);
// The cached entry for this CPU model and thread count, if any.
std::optional<Peak> load_peak(const std::string &path, int threads);
// Adds or replaces the entry for p.threads (entries of another CPU model are
// dropped). Returns false (and leaves the file alone) when it cannot write.
bool save_peak(const std::string &path, const Peak &p);
std::string describe(const Peak &p);

}  // namespace anydnn_bench
