// --reduction: anydnnReduceTensor, as benchdnn's reduction driver:
// --alg=sum|mul|min|max|mean|amax|norm1|norm2 --dt --tag, problem SRC:DST
// where each dimension of DST is SRC's or 1 (reduced); e.g.
// 16x64x56x56:1x64x1x1 (per-channel sums).
#pragma once

#include <memory>

#include "core/driver.hpp"
#include "core/types.hpp"

namespace anydnn_bench {

struct ReductionProblem : Problem {
    enum Input { kSrc };

    anydnnReduceTensorOp_t alg = ANYDNN_REDUCE_TENSOR_ADD;
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;
    Tag tag = Tag::nchw;
    Dims src, dst;

    const char *driver() const override { return "reduction"; }
    std::string repro() const override;
    double bytes() const override;
    double tolerance() const override;
    Inputs make_inputs(anydnnHandle_t h, uint64_t seed) const override;
    // anydnn_case, onednn_case: its driver's WithCases (core/problem_driver.hpp).
};

std::unique_ptr<Driver> make_reduction_driver();
extern const char kReductionUsage[];

}  // namespace anydnn_bench
