// anydnn-bench: benchmarks anydnn's primitives, alone or against oneDNN in
// the same process, following oneDNN benchdnn's conventions (drivers,
// descriptors, batch files, perf and corr modes). See docs/PERFORMANCE.md.
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "anydnn/anydnn.h"
#include "core/cli.hpp"
#include "core/error.hpp"
#include "core/harness.hpp"
#include "core/peak.hpp"
#include "core/report.hpp"
#include "onednn/adaptor.hpp"

using namespace anydnn_bench;

namespace {

std::string anydnn_version() {
    const size_t v = anydnnGetVersion();
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

// The line of anydnnGetBuildInfo() that starts with `key`.
std::string build_info(const std::string &key) {
    const std::string info = anydnnGetBuildInfo();
    const size_t at = info.find(key + ": ");
    if (at == std::string::npos) return "?";
    const size_t begin = at + key.size() + 2;
    return info.substr(begin, info.find('\n', begin) - begin);
}

void run_peak(const Plan &plan, const std::string &file, int default_threads) {
    const int threads = plan.peak_threads > 0 ? plan.peak_threads : default_threads;
    std::vector<int> counts{1};
    if (threads != 1) counts.push_back(threads);
    for (int t : counts) {
        const Peak p = measure_peak(t, plan.peak_mib, plan.peak_min_time_s);
        std::printf("peak: %s\n", describe(p).c_str());
        if (!save_peak(file, p)) std::fprintf(stderr, "anydnn-bench: cannot write %s\n", file.c_str());
    }
    std::printf("peak: saved to %s\n", file.c_str());
}

}  // namespace

int main(int argc, char **argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    Plan plan;
    try {
        plan = parse_command_line(args);
    } catch (const ParseError &e) {
        std::fprintf(stderr, "anydnn-bench: %s\n(anydnn-bench --help lists the options)\n", e.what());
        return 2;
    }
    if (plan.help || args.empty()) {
        std::fputs(usage().c_str(), stdout);
        return 0;
    }
    const int default_threads = omp_get_max_threads();  // before any problem sets its own
    const std::string peak_file = plan.peak_file.empty() ? default_peak_file() : plan.peak_file;
    const char *max_isa = std::getenv("ANYDNN_MAX_ISA");
    std::printf("anydnn-bench: anydnn %s (cpu isa %s%s%s), %s\n", anydnn_version().c_str(),
                build_info("cpu isa detected").c_str(), max_isa ? ", ANYDNN_MAX_ISA=" : "", max_isa ? max_isa : "",
                onednn::version().c_str());
    std::printf("cpu: %s, %d CPUs\n", cpu_model().c_str(), cpu_count());
    if (const double busy = other_runnable_threads(); busy >= 0.5)
        std::printf("warning: %.1f other threads are running on %d CPUs: they compete for the cores and the "
                    "memory, timings are unreliable\n",
                    busy, cpu_count());

    if (plan.peak) run_peak(plan, peak_file, default_threads);
    if (plan.problems.empty()) return 0;

    bool asked_onednn = false;
    std::set<int> thread_counts;
    for (const PlannedProblem &p : plan.problems) {
        asked_onednn |= p.settings.compare_onednn;
        thread_counts.insert(p.settings.threads > 0 ? p.settings.threads : default_threads);
    }
    if (asked_onednn && !onednn::kBuiltIn)
        std::printf("oneDNN: not built in (configure with -Ddnnl_DIR=<oneDNN>/lib/cmake/dnnl, see "
                    "bench/run-vs-onednn.sh); running anydnn alone\n");

    int failed = 0;
    try {
        Session session(peak_file, default_threads);
        for (int t : thread_counts) {
            // One --peak entry holds both references, so one hint covers both.
            if (auto p = load_peak(peak_file, t))
                std::printf("bandwidth reference, %d thread%s: %.1f GB/s (best of %s)\n", t, t == 1 ? "" : "s",
                            p->bandwidth_gbs(), describe(*p).c_str());
            else
                std::printf("bandwidth and FMA peak reference, %d thread%s: none in %s (run anydnn-bench --peak "
                            "--threads=%d)\n",
                            t, t == 1 ? "" : "s", peak_file.c_str(), t);
        }
        std::printf("ms: median; spread: (max - min) / median; GB/s: the fewest bytes the op moves / median; "
                    "%%bw: of the bandwidth reference; %%peak: anydnn GFLOP/s of the fp32 FMA peak; ratio: anydnn ms / "
                    "oneDNN ms\n");
        Report report(stdout);
        for (const PlannedProblem &p : plan.problems) {
            report.add(session.run(p));
            std::fflush(stdout);
        }
        failed = report.finish();
        const RunInfo info{cpu_model(), anydnn_version(), onednn::version()};
        if (!plan.csv_path.empty() && !report.write_csv(plan.csv_path))
            std::fprintf(stderr, "anydnn-bench: cannot write %s\n", plan.csv_path.c_str());
        if (!plan.json_path.empty() && !report.write_json(plan.json_path, info))
            std::fprintf(stderr, "anydnn-bench: cannot write %s\n", plan.json_path.c_str());
    } catch (const std::exception &e) {
        std::fprintf(stderr, "anydnn-bench: %s\n", e.what());
        return 2;
    }
    return failed > 0 ? 1 : 0;
}
