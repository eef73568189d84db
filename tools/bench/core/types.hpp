// Data types, layouts and dimensions as the benchmark descriptors name them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "anydnn/anydnn.h"

namespace anydnn_bench {

using Dims = std::vector<int64_t>;

// Memory orders of the descriptors: channels first (NCHW, NCDHW) or channels
// last (NHWC, NDHWC), for any rank; dimension 0 is N and 1 is C.
enum class Tag { nchw, nhwc };

// benchdnn's names: f32, f64, f16, bf16 (and the integer types for
// --transform): s8, u8, s32, s64.
const char *dt_name(anydnnDataType_t dt);
size_t dt_size(anydnnDataType_t dt);
const char *tag_name(Tag tag);

int64_t elements(const Dims &dims);
// Strides in elements of a packed tensor of `dims` in `tag` order.
Dims strides_for(const Dims &dims, Tag tag);
// Appends 1s up to 4 dimensions: anydnn (like cuDNN) takes tensors of 3 to 8
// dimensions, and a 2-D problem "64x1000" is the 4-D 64x1000x1x1.
Dims at_least_4d(Dims dims);
// "16x64x56x56"
std::string dims_string(const Dims &dims);

}  // namespace anydnn_bench
