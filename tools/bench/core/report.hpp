// Printing of results: a table on stdout as the problems run, a summary
// with the geometric mean of the anydnn/oneDNN time ratios, and the same
// rows as CSV and JSON.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "core/harness.hpp"

namespace anydnn_bench {

struct RunInfo {
    std::string cpu, anydnn_version, onednn_version;
};

class Report {
public:
    explicit Report(FILE *out) : out_(out) {}
    void add(const Result &r);  // prints its row
    // The summary line; returns the number of failed problems.
    int finish();
    // ratio = anydnn median / oneDNN median; false when oneDNN was not timed.
    static bool ratio(const Result &r, double *value);
    double geomean_ratio(int *count) const;

    // The network a batch of layers named ..._xN adds up to: each timed
    // layer's median times N, over the rows that ran in both libraries (a
    // layer missing on one side would bias the sum).
    struct NetworkTotal {
        int rows = 0;  // 0: no such rows, nothing to print
        int layers = 0;  // the sum of their N
        double anydnn_ms = 0, onednn_ms = 0;
        double ratio() const { return onednn_ms > 0 ? anydnn_ms / onednn_ms : 0; }
    };
    NetworkTotal network_total() const;

    bool write_csv(const std::string &path) const;
    bool write_json(const std::string &path, const RunInfo &info) const;

private:
    FILE *out_;
    std::vector<Result> results_;
    std::string header_;  // the column header last printed
};

}  // namespace anydnn_bench
