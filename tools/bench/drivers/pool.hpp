// --pool: anydnnPoolingForward and anydnnPoolingBackward (--dir=bwd), as
// benchdnn's pool driver: --alg=max|avg_np|avg_p (benchdnn's pooling_max,
// pooling_avg_exclude_padding, pooling_avg_include_padding too) --dt
// --tag=nchw|nhwc --mb=N; problem: a
// benchdnn descriptor, e.g. mb16ic64_ih112oh56_kh3sh2ph1 (the conv syntax
// of core/conv_shape.hpp without oc, g and dilation; '_' separates fields).
#pragma once

#include <memory>

#include "core/conv_shape.hpp"
#include "core/driver.hpp"
#include "core/types.hpp"

namespace anydnn_bench {

struct PoolProblem : Problem {
    enum Input { kSrc, kDst, kDiffDst };  // y and dy: backward only (y from anydnnPoolingForward)

    bool backward = false;
    anydnnPoolingMode_t alg = ANYDNN_POOLING_MAX;
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;
    Tag tag = Tag::nchw;
    ConvShape shape;  // oc = ic

    // N x C x (D x) H x W: a 1-D problem has H = 1.
    Dims src_dims() const;
    Dims dst_dims() const;
    int spatial_rank() const { return shape.spatial_rank(); }

    const char *driver() const override { return "pool"; }
    std::string repro() const override;
    double bytes() const override;
    int occurrences() const override { return occurrences_in_name(shape.name); }
    double tolerance() const override;
    Inputs make_inputs(anydnnHandle_t h, uint64_t seed) const override;
    // anydnn_case, onednn_case: its driver's WithCases (core/problem_driver.hpp).
};

std::unique_ptr<Driver> make_pool_driver();
extern const char kPoolUsage[];

}  // namespace anydnn_bench
