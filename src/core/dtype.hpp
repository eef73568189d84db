// Data types: sizes, names and the compute type each is computed in.
#pragma once

#include <cstddef>

#include "anydnn/anydnn_core.h"

namespace anydnn {

// True for the types anydnn stores tensors in (the vectorized INT8x4 family is not).
bool dtype_supported(anydnnDataType_t dt);
// True for a value of the anydnnDataType_t enum at all (supported or not).
bool dtype_known(anydnnDataType_t dt);
// Bytes per element; 0 for an unsupported type.
std::size_t dtype_size(anydnnDataType_t dt);
// "f32", "f64", "f16", "bf16", "s8", "u8", "s32", "s64" (benchdnn's names).
const char *dtype_name(anydnnDataType_t dt);
// FLOAT, DOUBLE, HALF, BFLOAT16: the types the compute ops accept.
bool dtype_is_floating(anydnnDataType_t dt);

}  // namespace anydnn
