// The command line: global options, driver flags, descriptors and batch
// files, turned into a plan of problems before anything runs.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/driver.hpp"

namespace anydnn_bench {

enum class Mode { perf, corr, both };

// Options that apply to every problem after them on the command line.
struct RunSettings {
    Mode mode = Mode::perf;
    int threads = 0;  // 0: every CPU (OpenMP's default)
    bool compare_onednn = false;
    double min_time_s = 0.5;  // measured time per library and problem
    int min_runs = 10;
};

struct PlannedProblem {
    RunSettings settings;
    std::shared_ptr<const Problem> problem;
};

struct Plan {
    bool help = false;
    bool peak = false;     // --peak: measure and cache this machine's peaks
    int peak_threads = 0;  // the --threads in effect at the end of the line
    double peak_min_time_s = 0.5;  // and the --min-time
    int peak_mib = 256;    // --peak-mib: size of each bandwidth array
    std::string peak_file; // --peak-file; empty: default_peak_file()
    std::string csv_path, json_path;
    std::vector<PlannedProblem> problems;
};

// Throws ParseError with a message naming the option, the descriptor field
// or the batch file line at fault.
Plan parse_command_line(std::span<const std::string> args);

std::string usage();

}  // namespace anydnn_bench
