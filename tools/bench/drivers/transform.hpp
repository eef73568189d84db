// --transform (alias --reorder): anydnnTransformTensor, as benchdnn's
// reorder driver: --sdt/--ddt (or --dt for both) --stag/--dtag (or --tag),
// problem NxCxHxW; e.g. --stag=nchw --dtag=nhwc 16x64x56x56.
#pragma once

#include <memory>

#include "core/driver.hpp"
#include "core/types.hpp"

namespace anydnn_bench {

struct TransformProblem : Problem {
    enum Input { kX };

    anydnnDataType_t sdt = ANYDNN_DATA_FLOAT, ddt = ANYDNN_DATA_FLOAT;
    Tag stag = Tag::nchw, dtag = Tag::nhwc;
    Dims dims;

    const char *driver() const override { return "transform"; }
    std::string repro() const override;
    double bytes() const override;
    double tolerance() const override;
    Inputs make_inputs(anydnnHandle_t h, uint64_t seed) const override;
    // anydnn_case, onednn_case: its driver's WithCases (core/problem_driver.hpp).
};

std::unique_ptr<Driver> make_transform_driver();
extern const char kTransformUsage[];

}  // namespace anydnn_bench
