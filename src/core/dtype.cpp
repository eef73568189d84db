#include "core/dtype.hpp"

namespace anydnn {

bool dtype_known(anydnnDataType_t dt) {
    return static_cast<int>(dt) >= ANYDNN_DATA_FLOAT && static_cast<int>(dt) <= ANYDNN_DATA_INT64;
}

bool dtype_supported(anydnnDataType_t dt) { return dtype_size(dt) != 0; }

std::size_t dtype_size(anydnnDataType_t dt) {
    switch (dt) {
    case ANYDNN_DATA_FLOAT: return 4;
    case ANYDNN_DATA_DOUBLE: return 8;
    case ANYDNN_DATA_HALF: return 2;
    case ANYDNN_DATA_BFLOAT16: return 2;
    case ANYDNN_DATA_INT8: return 1;
    case ANYDNN_DATA_UINT8: return 1;
    case ANYDNN_DATA_INT32: return 4;
    case ANYDNN_DATA_INT64: return 8;
    default: return 0;
    }
}

const char *dtype_name(anydnnDataType_t dt) {
    switch (dt) {
    case ANYDNN_DATA_FLOAT: return "f32";
    case ANYDNN_DATA_DOUBLE: return "f64";
    case ANYDNN_DATA_HALF: return "f16";
    case ANYDNN_DATA_BFLOAT16: return "bf16";
    case ANYDNN_DATA_INT8: return "s8";
    case ANYDNN_DATA_UINT8: return "u8";
    case ANYDNN_DATA_INT32: return "s32";
    case ANYDNN_DATA_INT64: return "s64";
    case ANYDNN_DATA_INT8x4: return "s8x4";
    case ANYDNN_DATA_UINT8x4: return "u8x4";
    case ANYDNN_DATA_INT8x32: return "s8x32";
    }
    return "unknown";
}

bool dtype_is_floating(anydnnDataType_t dt) {
    return dt == ANYDNN_DATA_FLOAT || dt == ANYDNN_DATA_DOUBLE || dt == ANYDNN_DATA_HALF ||
           dt == ANYDNN_DATA_BFLOAT16;
}

}  // namespace anydnn
