// --binary: anydnnOpTensor (add, mul, min, max) and anydnnAddTensor, as
// benchdnn's binary driver: --alg=add|mul|min|max|addtensor --dt --tag,
// problem SRC0:SRC1 where each dimension of SRC1 is SRC0's or 1 (broadcast).
// OpTensor computes C = op(A, B) with A = src0, B = src1; addtensor is the
// in-place bias add C += A with C = src0 and A = src1.
#pragma once

#include <memory>

#include "core/driver.hpp"
#include "core/types.hpp"

namespace anydnn_bench {

enum class BinaryAlg { add, mul, min, max, addtensor };

struct BinaryProblem : Problem {
    enum Input { kSrc0, kSrc1 };

    BinaryAlg alg = BinaryAlg::add;
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;
    Tag tag = Tag::nchw;
    Dims src0, src1;

    const char *driver() const override { return "binary"; }
    std::string repro() const override;
    double bytes() const override;
    double tolerance() const override;
    Inputs make_inputs(anydnnHandle_t h, uint64_t seed) const override;
    // anydnn_case, onednn_case: its driver's WithCases (core/problem_driver.hpp).
};

std::unique_ptr<Driver> make_binary_driver();
extern const char kBinaryUsage[];

}  // namespace anydnn_bench
