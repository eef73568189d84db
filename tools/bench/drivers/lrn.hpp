// --lrn: anydnnLRNCrossChannelForward / Backward, as benchdnn's lrn driver:
// --dir=fwd|bwd --alg=across (benchdnn's ACROSS) --dt --tag=nchw|nhwc
// --mb=N; problem: benchdnn's descriptor, e.g. mb16ic96ih55ls5alpha0.0001beta0.75k2
// (fields mb ic id ih iw ls alpha beta k, '_' ignored, a name after n; iw
// defaults to ih, id to 1 (a 2-D problem)).
#pragma once

#include <memory>
#include <string>

#include "core/driver.hpp"
#include "core/types.hpp"

namespace anydnn_bench {

struct LrnProblem : Problem {
    enum Input { kX, kY, kDy };

    bool backward = false;
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;
    Tag tag = Tag::nchw;
    int64_t mb = 2, ic = 1, id = 0, ih = 1, iw = 0;  // id 0: 2-D
    int64_t ls = 5;
    double alpha = 1e-4, beta = 0.75, k = 1;
    std::string name;

    Dims dims() const;

    const char *driver() const override { return "lrn"; }
    std::string repro() const override;
    double bytes() const override;
    int occurrences() const override;
    double tolerance() const override;
    Inputs make_inputs(anydnnHandle_t h, uint64_t seed) const override;
    // anydnn_case, onednn_case: its driver's WithCases (core/problem_driver.hpp).
};

std::unique_ptr<Driver> make_lrn_driver();
extern const char kLrnUsage[];

}  // namespace anydnn_bench
