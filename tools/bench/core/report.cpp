#include "core/report.hpp"

#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>

namespace anydnn_bench {
namespace {

double gbs(const Result &r, const Stats &s) { return s.median_ms > 0 ? r.bytes / (s.median_ms * 1e-3) * 1e-9 : 0; }
double gflops(const Result &r, const Stats &s) {
    return s.median_ms > 0 ? r.flops / (s.median_ms * 1e-3) * 1e-9 : 0;
}

// (max - min) / median, in %.
double spread(const Stats &s) { return s.median_ms > 0 ? 100.0 * (s.max_ms - s.min_ms) / s.median_ms : 0; }

std::string fmt(const char *f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

// The spread column: tiny problems on a busy machine reach thousands of %.
std::string spread_cell(const Stats &s) {
    const double v = spread(s);
    return v < 999.5 ? fmt("%7.0f%%", v) : "  >999%";
}

const char *outcome_name(Outcome o) {
    switch (o) {
    case Outcome::passed: return "passed";
    case Outcome::failed: return "failed";
    default: return "skipped";
    }
}

std::string header_for(const Result &r) {
    std::string h;
    // Compute-bound ops (flops > 0) also get GFLOP/s.
    const char *flops = r.flops > 0 ? " GFLOP/s" : "";
    if (r.perf) h += std::string(" anydnn ms  spread    GB/s   %bw") + flops + (r.flops > 0 ? " %peak" : "");
    if (r.has_onednn) h += std::string("  oneDNN ms  spread    GB/s") + flops + "   ratio";
    if (r.has_onednn_reorder) h += "  oneDNN+reorder ms";
    if (r.corr) h += "  corr  rel.err  ref           ";
    return h + "  problem";
}

std::string row_for(const Result &r) {
    std::string s;
    if (r.perf) {
        s += fmt("%10.4f", r.anydnn.median_ms) + spread_cell(r.anydnn) + fmt("%8.2f", gbs(r, r.anydnn));
        s += r.bandwidth_gbs ? fmt("%5.0f%%", 100.0 * gbs(r, r.anydnn) / *r.bandwidth_gbs) : "     -";
        if (r.flops > 0) {
            s += fmt("%8.1f", gflops(r, r.anydnn));
            s += r.fma_gflops ? fmt("%5.0f%%", 100.0 * gflops(r, r.anydnn) / *r.fma_gflops) : "     -";
        }
    }
    if (r.has_onednn) {
        double q = 0;
        Report::ratio(r, &q);
        s += fmt("%11.4f", r.onednn.median_ms) + spread_cell(r.onednn) + fmt("%8.2f", gbs(r, r.onednn));
        if (r.flops > 0) s += fmt("%8.1f", gflops(r, r.onednn));
        s += fmt("%8.3f", q);
    }
    if (r.has_onednn_reorder) s += fmt("%19.4f", r.onednn_reorder.median_ms);
    if (r.corr) {
        char b[96];
        std::snprintf(b, sizeof b, "  %-4s %8.1e  %-14s", r.outcome == Outcome::failed ? "FAIL" : "ok", r.corr_error,
                      r.corr_ref.c_str());
        s += b;
    }
    return s + "  " + r.repro;
}

std::string csv_quote(const std::string &s) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string json_string(const std::string &s) {
    std::string q = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            q += '\\';
            q += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            q += fmt("\\u%04x", static_cast<unsigned char>(c));
        } else {
            q += c;
        }
    }
    return q + "\"";
}

std::string json_number(double v) { return std::isfinite(v) ? fmt("%.6g", v) : "null"; }

// Opens `path` for writing; "-" is stdout.
class Output {
public:
    explicit Output(const std::string &path) {
        if (path != "-") file_.open(path);
    }
    std::ostream &stream() { return file_.is_open() ? file_ : std::cout; }
    bool ok() { return static_cast<bool>(stream()); }

private:
    std::ofstream file_;
};

}  // namespace

bool Report::ratio(const Result &r, double *value) {
    if (!r.perf || !r.has_onednn || r.onednn.median_ms <= 0) return false;
    *value = r.anydnn.median_ms / r.onednn.median_ms;
    return true;
}

void Report::add(const Result &r) {
    results_.push_back(r);
    if (r.outcome == Outcome::skipped) {
        std::fprintf(out_, "skipped: %s  %s\n", r.message.c_str(), r.repro.c_str());
        return;
    }
    if (r.outcome == Outcome::failed && !r.corr) {
        std::fprintf(out_, "FAILED: %s  %s\n", r.message.c_str(), r.repro.c_str());
        return;
    }
    const std::string h = header_for(r);
    if (h != header_) {
        std::fprintf(out_, "%s\n", h.c_str());
        header_ = h;
    }
    std::fprintf(out_, "%s\n", row_for(r).c_str());
    if (!r.onednn_note.empty()) std::fprintf(out_, "    oneDNN not run: %s\n", r.onednn_note.c_str());
}

double Report::geomean_ratio(int *count) const {
    double log_sum = 0;
    int n = 0;
    for (const Result &r : results_) {
        double q;
        if (r.outcome != Outcome::skipped && ratio(r, &q)) {
            log_sum += std::log(q);
            ++n;
        }
    }
    *count = n;
    return n > 0 ? std::exp(log_sum / n) : 0;
}

Report::NetworkTotal Report::network_total() const {
    NetworkTotal t;
    for (const Result &r : results_) {
        double q;
        if (r.outcome == Outcome::skipped || r.occurrences <= 0 || !ratio(r, &q)) continue;
        ++t.rows;
        t.layers += r.occurrences;
        t.anydnn_ms += r.anydnn.median_ms * r.occurrences;
        t.onednn_ms += r.onednn.median_ms * r.occurrences;
    }
    return t;
}

int Report::finish() {
    int passed = 0, failed = 0, skipped = 0;
    for (const Result &r : results_) {
        if (r.outcome == Outcome::passed) ++passed;
        if (r.outcome == Outcome::failed) ++failed;
        if (r.outcome == Outcome::skipped) ++skipped;
    }
    int n = 0;
    const double g = geomean_ratio(&n);
    if (n > 0)
        std::fprintf(out_, "geomean anydnn/oneDNN time ratio over %d problems: %.3f (below 1: anydnn faster)\n", n,
                     g);
    if (const NetworkTotal t = network_total(); t.rows > 0)
        std::fprintf(out_,
                     "network total over %d layers (%d rows, median ms x N of names ending _xN): anydnn %.3f ms, "
                     "oneDNN %.3f ms, ratio %.3f\n",
                     t.layers, t.rows, t.anydnn_ms, t.onednn_ms, t.ratio());
    std::fprintf(out_, "summary: %zu problems, %d ok, %d skipped, %d failed\n", results_.size(), passed, skipped,
                 failed);
    return failed;
}

bool Report::write_csv(const std::string &path) const {
    Output o(path);
    std::ostream &s = o.stream();
    s << "driver,problem,threads,outcome,bytes,anydnn_ms_median,anydnn_ms_min,anydnn_ms_max,anydnn_runs,anydnn_gbs,"
         "bandwidth_gbs,anydnn_pct_bandwidth,onednn_ms_median,onednn_ms_min,onednn_ms_max,onednn_runs,onednn_gbs,"
         "ratio,corr_ref,corr_error,corr_tolerance,message\n";
    for (const Result &r : results_) {
        auto num = [&](bool have, double v) { return have ? fmt("%.6g", v) : std::string(); };
        double q = 0;
        const bool has_ratio = ratio(r, &q);
        const bool bw = r.perf && r.bandwidth_gbs.has_value();
        s << r.driver << ',' << csv_quote(r.repro) << ',' << r.threads << ',' << outcome_name(r.outcome) << ','
          << fmt("%.0f", r.bytes) << ',' << num(r.perf, r.anydnn.median_ms) << ',' << num(r.perf, r.anydnn.min_ms)
          << ',' << num(r.perf, r.anydnn.max_ms) << ',' << (r.perf ? std::to_string(r.anydnn.runs) : "") << ','
          << num(r.perf, gbs(r, r.anydnn)) << ',' << num(bw, bw ? *r.bandwidth_gbs : 0) << ','
          << num(bw, bw ? 100.0 * gbs(r, r.anydnn) / *r.bandwidth_gbs : 0) << ','
          << num(r.has_onednn, r.onednn.median_ms) << ',' << num(r.has_onednn, r.onednn.min_ms) << ','
          << num(r.has_onednn, r.onednn.max_ms) << ',' << (r.has_onednn ? std::to_string(r.onednn.runs) : "")
          << ',' << num(r.has_onednn, gbs(r, r.onednn)) << ',' << num(has_ratio, q) << ',' << r.corr_ref << ','
          << num(r.corr, r.corr_error) << ',' << num(r.corr, r.corr_tolerance) << ','
          << csv_quote(r.message.empty() ? r.onednn_note : r.message) << '\n';
    }
    return o.ok();
}

bool Report::write_json(const std::string &path, const RunInfo &info) const {
    Output o(path);
    std::ostream &s = o.stream();
    auto stats = [&](const Result &r, const Stats &st) {
        return "{\"median_ms\": " + json_number(st.median_ms) + ", \"min_ms\": " + json_number(st.min_ms) +
               ", \"max_ms\": " + json_number(st.max_ms) + ", \"runs\": " + std::to_string(st.runs) +
               ", \"gbs\": " + json_number(gbs(r, st)) +
               (r.flops > 0 ? ", \"gflops\": " + json_number(gflops(r, st)) : std::string()) + "}";
    };
    s << "{\n  \"tool\": \"anydnn-bench\",\n  \"cpu\": " << json_string(info.cpu)
      << ",\n  \"anydnn_version\": " << json_string(info.anydnn_version)
      << ",\n  \"onednn_version\": " << json_string(info.onednn_version) << ",\n  \"results\": [";
    for (size_t i = 0; i < results_.size(); ++i) {
        const Result &r = results_[i];
        s << (i ? "," : "") << "\n    {\"driver\": " << json_string(r.driver) << ", \"problem\": " << json_string(r.repro)
          << ", \"threads\": " << r.threads << ", \"outcome\": \"" << outcome_name(r.outcome)
          << "\", \"bytes\": " << fmt("%.0f", r.bytes);
        if (r.flops > 0) s << ", \"flops\": " << fmt("%.0f", r.flops);
        if (r.bandwidth_gbs) s << ", \"bandwidth_gbs\": " << json_number(*r.bandwidth_gbs);
        if (r.fma_gflops) s << ", \"fma_peak_gflops\": " << json_number(*r.fma_gflops);
        if (r.perf) s << ", \"anydnn\": " << stats(r, r.anydnn);
        if (r.perf && r.fma_gflops)
            s << ", \"anydnn_pct_fma_peak\": " << json_number(100.0 * gflops(r, r.anydnn) / *r.fma_gflops);
        if (r.has_onednn) s << ", \"onednn\": " << stats(r, r.onednn);
        if (r.has_onednn_reorder) s << ", \"onednn_reorder\": " << stats(r, r.onednn_reorder);
        if (double q; ratio(r, &q)) s << ", \"ratio\": " << json_number(q);
        if (r.corr)
            s << ", \"corr\": {\"ref\": " << json_string(r.corr_ref) << ", \"error\": " << json_number(r.corr_error)
              << ", \"tolerance\": " << json_number(r.corr_tolerance) << "}";
        const std::string &m = r.message.empty() ? r.onednn_note : r.message;
        if (!m.empty()) s << ", \"message\": " << json_string(m);
        s << "}";
    }
    int n = 0;
    const double g = geomean_ratio(&n);
    s << "\n  ],\n  \"geomean_ratio\": " << (n > 0 ? json_number(g) : "null");
    if (const NetworkTotal t = network_total(); t.rows > 0)
        s << ",\n  \"network_total\": {\"rows\": " << t.rows << ", \"layers\": " << t.layers
          << ", \"anydnn_ms\": " << json_number(t.anydnn_ms) << ", \"onednn_ms\": " << json_number(t.onednn_ms)
          << ", \"ratio\": " << json_number(t.ratio()) << "}";
    s << "\n}\n";
    return o.ok();
}

}  // namespace anydnn_bench
