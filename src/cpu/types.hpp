// Storage types of the 16-bit floating-point formats, and the mapping from
// anydnnDataType_t to C++ storage types. Plain data only: the conversions live
// in the ISA-specific kernels (src/cpu/kernels/convert.hpp).
#pragma once

#include <cstdint>

#include "anydnn/anydnn_core.h"

namespace anydnn::cpu {

struct f16 {
    uint16_t bits;
};
struct bf16 {
    uint16_t bits;
};

template <class T>
struct TypeTag {
    using type = T;
};

// Calls fn(TypeTag<T>{}) with the storage type of dt; false for a type that
// has none (the caller validated it, so this is an internal error).
template <class Fn>
bool visit_dtype(anydnnDataType_t dt, Fn &&fn) {
    switch (dt) {
    case ANYDNN_DATA_FLOAT: fn(TypeTag<float>{}); return true;
    case ANYDNN_DATA_DOUBLE: fn(TypeTag<double>{}); return true;
    case ANYDNN_DATA_HALF: fn(TypeTag<f16>{}); return true;
    case ANYDNN_DATA_BFLOAT16: fn(TypeTag<bf16>{}); return true;
    case ANYDNN_DATA_INT8: fn(TypeTag<int8_t>{}); return true;
    case ANYDNN_DATA_UINT8: fn(TypeTag<uint8_t>{}); return true;
    case ANYDNN_DATA_INT32: fn(TypeTag<int32_t>{}); return true;
    case ANYDNN_DATA_INT64: fn(TypeTag<int64_t>{}); return true;
    default: return false;
    }
}

// The same for the floating types the compute ops take.
template <class Fn>
bool visit_float_dtype(anydnnDataType_t dt, Fn &&fn) {
    switch (dt) {
    case ANYDNN_DATA_FLOAT: fn(TypeTag<float>{}); return true;
    case ANYDNN_DATA_DOUBLE: fn(TypeTag<double>{}); return true;
    case ANYDNN_DATA_HALF: fn(TypeTag<f16>{}); return true;
    case ANYDNN_DATA_BFLOAT16: fn(TypeTag<bf16>{}); return true;
    default: return false;
    }
}

}  // namespace anydnn::cpu
