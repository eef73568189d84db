#include "core/types.hpp"

namespace anydnn_bench {

const char *dt_name(anydnnDataType_t dt) {
    switch (dt) {
    case ANYDNN_DATA_FLOAT: return "f32";
    case ANYDNN_DATA_DOUBLE: return "f64";
    case ANYDNN_DATA_HALF: return "f16";
    case ANYDNN_DATA_BFLOAT16: return "bf16";
    case ANYDNN_DATA_INT8: return "s8";
    case ANYDNN_DATA_UINT8: return "u8";
    case ANYDNN_DATA_INT32: return "s32";
    case ANYDNN_DATA_INT64: return "s64";
    default: return "?";
    }
}

size_t dt_size(anydnnDataType_t dt) {
    switch (dt) {
    case ANYDNN_DATA_DOUBLE:
    case ANYDNN_DATA_INT64: return 8;
    case ANYDNN_DATA_HALF:
    case ANYDNN_DATA_BFLOAT16: return 2;
    case ANYDNN_DATA_INT8:
    case ANYDNN_DATA_UINT8: return 1;
    default: return 4;
    }
}

const char *tag_name(Tag tag) { return tag == Tag::nchw ? "nchw" : "nhwc"; }

int64_t elements(const Dims &dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
}

Dims strides_for(const Dims &dims, Tag tag) {
    const size_t rank = dims.size();
    Dims strides(rank, 1);
    if (tag == Tag::nchw || rank < 3) {
        for (size_t i = rank - 1; i > 0; --i) strides[i - 1] = strides[i] * dims[i];
        return strides;
    }
    // Channels last: C is innermost, then the spatial dimensions, then N.
    int64_t s = dims[1];
    for (size_t i = rank - 1; i >= 2; --i) {
        strides[i] = s;
        s *= dims[i];
    }
    strides[0] = s;
    return strides;
}

Dims at_least_4d(Dims dims) {
    while (dims.size() < 4) dims.push_back(1);
    return dims;
}

std::string dims_string(const Dims &dims) {
    std::string s;
    for (size_t i = 0; i < dims.size(); ++i) {
        if (i > 0) s += 'x';
        s += std::to_string(dims[i]);
    }
    return s;
}

}  // namespace anydnn_bench
