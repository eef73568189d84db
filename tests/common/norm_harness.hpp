// The normalization suites' shared runner: one problem through the batch
// normalization API (plain or Ex) or the generic normalization API,
// training forward, backward and inference, every output compared with the
// reference (tests/reference/norm_ref.hpp); and a finite-difference check of
// the backward pass in f64.
#pragma once

#include <string>
#include <vector>

#include "common/test_util.hpp"
#include "reference/norm_ref.hpp"

namespace anydnn_test {

enum class NormApi { bn, generic };

using LayoutFn = Shape (*)(const std::vector<int> &);
Shape padded_by_2(const std::vector<int> &dims);

struct NormCase {
    ref::Norm norm;
    std::vector<int> dims;
    LayoutFn layout = packed;
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;
    double alpha = 1, beta = 0;
    NormApi api = NormApi::generic;
    bool persistent = false;  // BN: SPATIAL_PERSISTENT for spatial
    bool saved_null = false;  // backward recomputes the statistics
    double odd_images_shift = 0;  // added to x's odd images: groups of close values beside others
    std::string describe() const;
};

// The call's enums.
anydnnBatchNormMode_t bn_mode(const NormCase &c);
anydnnNormMode_t norm_mode(const ref::Norm &n);
int norm_group_cnt(const ref::Norm &n);

// Training forward (running averages and saved statistics), backward and
// inference, each checked against the reference.
void check_norm(anydnnHandle_t h, const NormCase &c);
// The backward pass (f64, activation off) against central differences of
// the training forward pass: dx, dscale and dbias of L = sum(w * y).
void check_norm_gradient(anydnnHandle_t h, const ref::Norm &n, const std::vector<int> &dims, NormApi api);

}  // namespace anydnn_test
