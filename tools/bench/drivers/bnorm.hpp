// --bnorm and --lnorm: batch normalization (anydnnBatchNormalization*) and
// layer normalization (anydnnNormalization* with ANYDNN_NORM_LAYER), as
// benchdnn's bnorm and lnorm drivers with scale and shift:
// --dir=FWD_D (training forward: y and the saved statistics), FWD_I
// (inference with given statistics), BWD_DW (dx, dscale, dshift from the
// saved statistics); --dt; --tag=nchw|nhwc (bnorm); problem: 16x64x56x56
// (bnorm: N x C x spatial) or 512x768 (lnorm: rows x normalized length, the
// anydnn tensor rows x C x 1 x 1).
#pragma once

#include <memory>

#include "core/driver.hpp"
#include "core/types.hpp"

namespace anydnn_bench {

struct NormBenchProblem : Problem {
    enum Input { kX, kDy, kScale, kShift, kMean, kVar, kInv };
    enum class Dir { fwd_d, fwd_i, bwd_dw };

    bool layer = false;  // --lnorm
    Dir dir = Dir::fwd_d;
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;
    Tag tag = Tag::nchw;
    Dims dims;
    double epsilon = 1e-5;

    Dims anydnn_dims() const;  // 4-D (or 5-D) as anydnn is called
    int64_t channels() const;  // scale/shift elements
    int64_t groups() const;    // statistics groups: C (bnorm) or rows (lnorm)

    const char *driver() const override { return layer ? "lnorm" : "bnorm"; }
    std::string repro() const override;
    double bytes() const override;
    double tolerance() const override;
    Inputs make_inputs(anydnnHandle_t h, uint64_t seed) const override;
    // anydnn_case, onednn_case: its driver's WithCases (core/problem_driver.hpp).
};

std::unique_ptr<Driver> make_bnorm_driver();
std::unique_ptr<Driver> make_lnorm_driver();
extern const char kBnormUsage[];
extern const char kLnormUsage[];

}  // namespace anydnn_bench
