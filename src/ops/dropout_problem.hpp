// The dropout problems, validated once for every backend:
//   forward:  y = x * mask / (1 - p), mask written to the reserve space
//   backward: dx = dy * mask / (1 - p), mask read from it
// The mask of an element is indexed by its position in row-major order of
// the dimensions (whatever the strides), so the loop below keeps that order
// and only merges neighbours contiguous in both tensors.
#pragma once

#include <cstdint>
#include <string>

#include "anydnn/anydnn_ops.h"
#include "core/tensor_desc.hpp"
#include "ops/dropout_desc.hpp"

namespace anydnn::ops {

struct DropoutProblem {
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;
    double p = 0;
    int nd = 1;                     // merged dimensions, row-major order kept
    int64_t dims[kMaxDims] = {1};
    int64_t out_strides[kMaxDims] = {}, in_strides[kMaxDims] = {};  // y (dx) and x (dy)
    int64_t elements = 1;           // = the reserve space's bytes
    TensorLayout in, out;
    std::string to_string() const;
};

// The reserve space's bytes for x: one per element.
inline std::size_t dropout_reserve_size(const TensorLayout &x) { return static_cast<std::size_t>(x.elements()); }

// The set descriptor behind dropoutDesc: BAD_PARAM when NULL or never set.
Status dropout_desc_arg(const anydnnDropoutStruct *desc, const anydnnDropoutStruct **out);
// BAD_PARAM unless p is in [0, 1].
Status check_dropout_p(float p);
// The states at `states` (kDropoutStatesSize bytes): BAD_PARAM when they
// were not initialized by anydnnSetDropoutDescriptor.
Status read_dropout_states(const void *states, DropoutStates *out);

// in: x (dy), out: y (dx). BAD_PARAM: dimensions or types that differ,
// non-positive strides, a reserve space smaller than dropout_reserve_size.
// NOT_SUPPORTED: integer tensors.
Status make_dropout_problem(const anydnnDropoutStruct &d, const TensorLayout &in, const char *in_arg,
                            const TensorLayout &out, const char *out_arg, std::size_t reserve_bytes,
                            DropoutProblem *p);

}  // namespace anydnn::ops
