#include "core/harness.hpp"

#include <omp.h>

#include <algorithm>

#include "core/error.hpp"
#include "onednn/adaptor.hpp"

namespace anydnn_bench {
namespace {

void run_fresh(Case &c) {
    for (Buffer *b : c.outputs()) b->poison();
    c.reset();
    c.run();
}

}  // namespace

Session::Session(std::string peak_file, int default_threads)
    : peak_file_(std::move(peak_file)), default_threads_(default_threads) {}

const std::optional<Peak> &Session::peak(int threads) {
    auto it = peaks_.find(threads);
    if (it == peaks_.end()) it = peaks_.emplace(threads, load_peak(peak_file_, threads)).first;
    return it->second;
}

std::optional<double> Session::bandwidth(int threads) {
    if (const std::optional<Peak> &p = peak(threads)) return p->bandwidth_gbs();
    return std::nullopt;
}

std::optional<double> Session::fma_peak(int threads) {
    // An entry whose FMA figure is missing (0) is no reference.
    if (const std::optional<Peak> &p = peak(threads); p && p->fma_gflops > 0) return p->fma_gflops;
    return std::nullopt;
}

void Session::correctness(const Problem &p, Case &a, Case *onednn, const Inputs &in, int threads, Result &r) {
    std::unique_ptr<Case> generic;
    Case *ref = onednn;
    r.corr_ref = "oneDNN";
    if (ref == nullptr) {
        if (!generic_) generic_ = std::make_unique<Handle>("generic");
        generic_->set_threads(threads);
        generic = p.anydnn_case(*generic_, in);
        ref = generic.get();
        r.corr_ref = "anydnn-generic";
    }
    run_fresh(a);
    run_fresh(*ref);
    const std::vector<Buffer *> out = a.outputs(), expected = ref->outputs();
    r.corr = true;
    r.corr_tolerance = p.tolerance();
    r.corr_error = 0;
    for (size_t i = 0; i < out.size() && i < expected.size(); ++i)
        r.corr_error = std::max(r.corr_error, rel_l2_error(*out[i], *expected[i]));
    if (!(r.corr_error <= r.corr_tolerance)) {
        r.outcome = Outcome::failed;
        r.message = "relative L2 error above the tolerance";
    }
}

Result Session::run(const PlannedProblem &pp) {
    const Problem &p = *pp.problem;
    const RunSettings &s = pp.settings;
    Result r;
    r.driver = p.driver();
    r.repro = p.repro();
    r.threads = threads(s);
    r.bytes = p.bytes();
    r.flops = p.flops();
    r.occurrences = p.occurrences();
    r.bandwidth_gbs = bandwidth(r.threads);
    if (r.flops > 0) r.fma_gflops = fma_peak(r.threads);
    try {
        main_.set_threads(r.threads);
        omp_set_num_threads(r.threads);  // oneDNN's OpenMP threads
        const Inputs in = p.make_inputs(main_, seed_);
        const std::unique_ptr<Case> a = p.anydnn_case(main_, in);
        std::unique_ptr<Case> o, o_reorder;
        // Without oneDNN built in, main says so once instead of on every row.
        if (s.compare_onednn && onednn::kBuiltIn) {
            try {
                o = p.onednn_case(in);
            } catch (const Unsupported &e) {
                r.onednn_note = e.what();
            }
            // Only timed, never compared: its outputs are onednn_case's.
            if (o && s.mode != Mode::corr) o_reorder = p.onednn_reorder_case(in);
        }
        if (s.mode != Mode::perf) correctness(p, *a, o.get(), in, r.threads, r);
        if (s.mode != Mode::corr) {
            std::vector<std::function<void()>> fns{[&] { a->run(); }};
            if (o) fns.push_back([&] { o->run(); });
            if (o_reorder) fns.push_back([&] { o_reorder->run(); });
            const std::vector<Stats> st = time_alternating(fns, {s.min_time_s, s.min_runs});
            r.perf = true;
            r.anydnn = st[0];
            if (o) {
                r.has_onednn = true;
                r.onednn = st[1];
            }
            if (o_reorder) {
                r.has_onednn_reorder = true;
                r.onednn_reorder = st[2];
            }
        }
    } catch (const Unsupported &e) {
        r.outcome = Outcome::skipped;
        r.message = e.what();
    } catch (const std::exception &e) {
        r.outcome = Outcome::failed;
        r.message = e.what();
    }
    return r;
}

}  // namespace anydnn_bench
