#include "core/buffer.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "core/error.hpp"
#include "core/types.hpp"

namespace anydnn_bench {
namespace {

float half_to_float(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000) << 16;
    const uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    } else if (man == 0) {
        bits = sign;
    } else {  // subnormal: value = man * 2^-24
        const float v = std::ldexp(float(man), -24);
        return sign ? -v : v;
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t float_to_half(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    const uint16_t sign = uint16_t((bits >> 16) & 0x8000);
    const float a = std::fabs(f);
    if (std::isnan(f)) return uint16_t(sign | 0x7e00);
    if (a >= 65520.0f) return uint16_t(sign | 0x7c00);  // rounds to infinity
    if (a < 6.103515625e-05f) {                          // subnormal or zero: units of 2^-24
        return uint16_t(sign | uint16_t(std::nearbyint(a * 16777216.0f)));
    }
    int e;
    const float m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
    uint32_t man = uint32_t(std::nearbyint(m * 2048.0f));  // 11 bits incl. the implicit one
    if (man == 2048) {
        man = 1024;
        ++e;
    }
    return uint16_t(sign | uint16_t((e + 14) << 10) | uint16_t(man - 1024));
}

float bf16_to_float(uint16_t h) {
    const uint32_t bits = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t float_to_bf16(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    if (std::isnan(f)) return uint16_t((bits >> 16) | 0x40);
    bits += 0x7fff + ((bits >> 16) & 1);  // round to nearest even
    return uint16_t(bits >> 16);
}

template <class T>
T saturate(double v) {
    if (std::isnan(v)) return T(0);
    const double r = std::nearbyint(v);
    if (r <= double(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (r >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return T(r);
}

// splitmix64: a fast, well-mixed stream that is identical on every platform.
uint64_t next_random(uint64_t &state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

}  // namespace

void Buffer::Free::operator()(void *p) const { std::free(p); }

Buffer::Buffer(anydnnDataType_t dt, int64_t count) : dt_(dt), count_(count) {
    const size_t size = (bytes() + 63) / 64 * 64;
    void *p = std::aligned_alloc(64, size == 0 ? 64 : size);
    if (p == nullptr) throw std::bad_alloc();
    data_.reset(p);
}

size_t Buffer::bytes() const { return size_t(count_) * dt_size(dt_); }

double Buffer::get(int64_t i) const {
    const void *p = static_cast<const char *>(data()) + size_t(i) * dt_size(dt_);
    switch (dt_) {
    case ANYDNN_DATA_FLOAT: return *static_cast<const float *>(p);
    case ANYDNN_DATA_DOUBLE: return *static_cast<const double *>(p);
    case ANYDNN_DATA_HALF: return half_to_float(*static_cast<const uint16_t *>(p));
    case ANYDNN_DATA_BFLOAT16: return bf16_to_float(*static_cast<const uint16_t *>(p));
    case ANYDNN_DATA_INT8: return *static_cast<const int8_t *>(p);
    case ANYDNN_DATA_UINT8: return *static_cast<const uint8_t *>(p);
    case ANYDNN_DATA_INT32: return *static_cast<const int32_t *>(p);
    case ANYDNN_DATA_INT64: return double(*static_cast<const int64_t *>(p));
    default: throw Unsupported("buffer: data type not handled");
    }
}

void Buffer::set(int64_t i, double v) {
    void *p = static_cast<char *>(data()) + size_t(i) * dt_size(dt_);
    switch (dt_) {
    case ANYDNN_DATA_FLOAT: *static_cast<float *>(p) = float(v); break;
    case ANYDNN_DATA_DOUBLE: *static_cast<double *>(p) = v; break;
    case ANYDNN_DATA_HALF: *static_cast<uint16_t *>(p) = float_to_half(float(v)); break;
    case ANYDNN_DATA_BFLOAT16: *static_cast<uint16_t *>(p) = float_to_bf16(float(v)); break;
    case ANYDNN_DATA_INT8: *static_cast<int8_t *>(p) = saturate<int8_t>(v); break;
    case ANYDNN_DATA_UINT8: *static_cast<uint8_t *>(p) = saturate<uint8_t>(v); break;
    case ANYDNN_DATA_INT32: *static_cast<int32_t *>(p) = saturate<int32_t>(v); break;
    case ANYDNN_DATA_INT64: *static_cast<int64_t *>(p) = saturate<int64_t>(v); break;
    default: throw Unsupported("buffer: data type not handled");
    }
}

void Buffer::fill_uniform(uint64_t seed, double lo, double hi, bool random_sign) {
    uint64_t state = seed;
    for (int64_t i = 0; i < count_; ++i) {
        const uint64_t r = next_random(state);
        double v = lo + (hi - lo) * double(r >> 11) * 0x1p-53;
        if (random_sign && (r & 1)) v = -v;
        set(i, v);
    }
}

void Buffer::poison() { std::memset(data(), 0xff, bytes()); }

void Buffer::copy_from(const Buffer &other) {
    if (other.bytes() != bytes()) throw LibraryError("buffer: copy between buffers of different sizes");
    std::memcpy(data(), other.data(), bytes());
}

double rel_l2_error(const Buffer &out, const Buffer &ref) {
    if (out.count() != ref.count()) return std::numeric_limits<double>::infinity();
    double diff2 = 0, ref2 = 0;
    for (int64_t i = 0; i < out.count(); ++i) {
        const double o = out.get(i), r = ref.get(i);
        if (std::isnan(o) != std::isnan(r)) return std::numeric_limits<double>::infinity();
        if (std::isnan(r) || (std::isinf(r) && o == r)) continue;
        diff2 += (o - r) * (o - r);
        ref2 += r * r;
    }
    return ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
}

}  // namespace anydnn_bench

namespace anydnn_bench {

double storage_tolerance(anydnnDataType_t dt) {
    switch (dt) {
    case ANYDNN_DATA_DOUBLE: return 1e-12;
    case ANYDNN_DATA_FLOAT: return 1e-5;
    case ANYDNN_DATA_HALF: return 2e-3;
    case ANYDNN_DATA_BFLOAT16: return 1.6e-2;
    default: return 0;  // integers: exact
    }
}

}  // namespace anydnn_bench
