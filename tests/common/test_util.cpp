#include "common/test_util.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>

#include "core/isa.hpp"

namespace anydnn_test {

std::string last_error() {
    char buf[1024];
    anydnnGetLastErrorString(buf, sizeof buf);
    return buf;
}

const std::vector<std::string> &isa_levels() {
    static const std::vector<std::string> levels = {"generic", "avx2", "avx512"};
    return levels;
}

Handle::Handle(const std::string &isa, int threads) {
    anydnn::Isa want;
    if (!anydnn::parse_isa(isa.c_str(), &want) || want > anydnn::detected_isa()) return;
    const char *old = std::getenv("ANYDNN_MAX_ISA");
    const std::string saved = old != nullptr ? old : "";
    setenv("ANYDNN_MAX_ISA", isa.c_str(), 1);
    const anydnnStatus_t s = anydnnCreate(&h);
    if (old != nullptr) setenv("ANYDNN_MAX_ISA", saved.c_str(), 1);
    else unsetenv("ANYDNN_MAX_ISA");
    if (s != ANYDNN_STATUS_SUCCESS) {
        ADD_FAILURE() << "anydnnCreate: " << last_error();
        return;
    }
    anydnnSetNumThreads(h, threads);
    available = true;
}

Handle::~Handle() {
    if (h != nullptr) anydnnDestroy(h);
}

uint64_t seed() {
    static const uint64_t s = [] {
        const char *env = std::getenv("ANYDNN_TEST_SEED");
        return env != nullptr ? std::strtoull(env, nullptr, 10) : uint64_t{20261202};
    }();
    return s;
}

std::mt19937_64 &rng() {
    static thread_local std::mt19937_64 g(seed());
    return g;
}

size_t dtype_size(anydnnDataType_t dt) {
    switch (dt) {
    case ANYDNN_DATA_FLOAT: case ANYDNN_DATA_INT32: return 4;
    case ANYDNN_DATA_DOUBLE: case ANYDNN_DATA_INT64: return 8;
    case ANYDNN_DATA_HALF: case ANYDNN_DATA_BFLOAT16: return 2;
    case ANYDNN_DATA_INT8: case ANYDNN_DATA_UINT8: return 1;
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
    default: return "?";
    }
}

std::string Shape::to_string() const {
    std::string s;
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
    s += " strides ";
    for (size_t i = 0; i < strides.size(); ++i) s += (i ? "," : "") + std::to_string(strides[i]);
    return s;
}

int64_t Shape::elements() const {
    int64_t n = 1;
    for (int d : dims) n *= d;
    return n;
}

int64_t Shape::span() const {
    int64_t s = 1;
    for (size_t i = 0; i < dims.size(); ++i) s += int64_t(dims[i] - 1) * strides[i];
    return s;
}

Shape packed(const std::vector<int> &dims) {
    Shape s{dims, std::vector<int>(dims.size())};
    int st = 1;
    for (int i = int(dims.size()) - 1; i >= 0; --i) {
        s.strides[i] = st;
        st *= dims[i];
    }
    return s;
}

Shape packed_nhwc(const std::vector<int> &dims) {
    Shape s{dims, std::vector<int>(dims.size())};
    int st = dims[1];
    s.strides[1] = 1;
    for (int i = int(dims.size()) - 1; i >= 2; --i) {
        s.strides[i] = st;
        st *= dims[i];
    }
    s.strides[0] = st;
    return s;
}

Shape padded(const std::vector<int> &dims, int pad) {
    Shape s{dims, std::vector<int>(dims.size())};
    int st = 1;
    for (int i = int(dims.size()) - 1; i >= 0; --i) {
        s.strides[i] = st;
        st = st * dims[i] + pad;
    }
    return s;
}

namespace {

double half_bits_to_double(uint16_t h) {
    const int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double v;
    if (exp == 0) v = std::ldexp(mant, -24);
    else if (exp == 31) v = mant ? std::numeric_limits<double>::quiet_NaN() : INFINITY;
    else v = std::ldexp(mant + 1024, exp - 25);
    return sign ? -v : v;
}

uint16_t double_to_half_bits(double d) {
    // Round to the nearest half by searching the ordered encodings: slow but
    // independent of the library's conversion.
    if (std::isnan(d)) return 0x7e00;
    const uint16_t sign = std::signbit(d) ? 0x8000 : 0;
    const double a = std::fabs(d);
    if (a >= 65520.0) return sign | 0x7c00;
    uint16_t lo = 0, hi = 0x7bff;
    while (lo < hi) {  // first encoding >= a
        const uint16_t mid = static_cast<uint16_t>((lo + hi) / 2);
        if (half_bits_to_double(mid) < a) lo = mid + 1;
        else hi = mid;
    }
    uint16_t best = lo;
    if (lo > 0) {
        const double up = half_bits_to_double(lo) - a, down = a - half_bits_to_double(lo - 1);
        if (down < up || (down == up && ((lo - 1) & 1) == 0)) best = lo - 1;
    }
    return sign | best;
}

double bf16_bits_to_double(uint16_t b) {
    uint32_t u = uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

uint16_t double_to_bf16_bits(double d) {
    const float f = static_cast<float>(d);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if (std::isnan(f)) return 0x7fc0;
    return static_cast<uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

template <class I>
I to_int(double v) {
    if (std::isnan(v)) return 0;
    const double r = std::nearbyint(v);
    if (r <= double(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
    if (r >= double(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
    return static_cast<I>(r);
}

double load_elem(anydnnDataType_t dt, const unsigned char *p) {
    switch (dt) {
    case ANYDNN_DATA_FLOAT: { float v; std::memcpy(&v, p, 4); return v; }
    case ANYDNN_DATA_DOUBLE: { double v; std::memcpy(&v, p, 8); return v; }
    case ANYDNN_DATA_HALF: { uint16_t v; std::memcpy(&v, p, 2); return half_bits_to_double(v); }
    case ANYDNN_DATA_BFLOAT16: { uint16_t v; std::memcpy(&v, p, 2); return bf16_bits_to_double(v); }
    case ANYDNN_DATA_INT8: return static_cast<int8_t>(*p);
    case ANYDNN_DATA_UINT8: return *p;
    case ANYDNN_DATA_INT32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case ANYDNN_DATA_INT64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    default: return 0;
    }
}

void store_elem(anydnnDataType_t dt, unsigned char *p, double d) {
    switch (dt) {
    case ANYDNN_DATA_FLOAT: { float v = static_cast<float>(d); std::memcpy(p, &v, 4); break; }
    case ANYDNN_DATA_DOUBLE: std::memcpy(p, &d, 8); break;
    case ANYDNN_DATA_HALF: { uint16_t v = double_to_half_bits(d); std::memcpy(p, &v, 2); break; }
    case ANYDNN_DATA_BFLOAT16: { uint16_t v = double_to_bf16_bits(d); std::memcpy(p, &v, 2); break; }
    case ANYDNN_DATA_INT8: { int8_t v = to_int<int8_t>(d); std::memcpy(p, &v, 1); break; }
    case ANYDNN_DATA_UINT8: { uint8_t v = to_int<uint8_t>(d); std::memcpy(p, &v, 1); break; }
    case ANYDNN_DATA_INT32: { int32_t v = to_int<int32_t>(d); std::memcpy(p, &v, 4); break; }
    case ANYDNN_DATA_INT64: { int64_t v = to_int<int64_t>(d); std::memcpy(p, &v, 8); break; }
    default: break;
    }
}

constexpr unsigned char kGuardByte = 0xa5;

}  // namespace

double round_to(anydnnDataType_t dt, double v) {
    unsigned char b[8];
    store_elem(dt, b, v);
    return load_elem(dt, b);
}

double storage_tol(anydnnDataType_t dt) {
    switch (dt) {
    case ANYDNN_DATA_HALF: return 2e-3;
    case ANYDNN_DATA_BFLOAT16: return 1.6e-2;
    case ANYDNN_DATA_DOUBLE: return 1e-12;
    default: return 2e-6;
    }
}

Tensor::Tensor(const Shape &shape, anydnnDataType_t dt, size_t misalign) : shape_(shape), dt_(dt) {
    bytes_.assign(static_cast<size_t>(shape.span()) * dtype_size(dt) + 2 * kGuard + 64, kGuardByte);
    const uintptr_t start = reinterpret_cast<uintptr_t>(bytes_.data()) + kGuard;
    base_ = (misalign % 64 + 64 - start % 64) % 64;
    poison();
    EXPECT_EQ(anydnnCreateTensorDescriptor(&desc_), ANYDNN_STATUS_SUCCESS);
    EXPECT_EQ(anydnnSetTensorNdDescriptor(desc_, dt, int(shape.dims.size()), shape.dims.data(),
                                          shape.strides.data()),
              ANYDNN_STATUS_SUCCESS)
        << last_error();
}

Tensor::~Tensor() { anydnnDestroyTensorDescriptor(desc_); }

int64_t Tensor::offset(const std::vector<int> &idx) const {
    int64_t off = 0;
    for (size_t i = 0; i < idx.size(); ++i) off += int64_t(idx[i]) * shape_.strides[i];
    return off;
}

double Tensor::at_offset(int64_t off) const {
    return load_elem(dt_, static_cast<const unsigned char *>(data()) + off * dtype_size(dt_));
}
void Tensor::set_offset(int64_t off, double v) {
    store_elem(dt_, static_cast<unsigned char *>(data()) + off * dtype_size(dt_), v);
}
double Tensor::at(const std::vector<int> &idx) const { return at_offset(offset(idx)); }
void Tensor::set(const std::vector<int> &idx, double v) { set_offset(offset(idx), v); }

void Tensor::fill_random(double lo, double hi) {
    std::uniform_real_distribution<double> u(lo, hi);
    for (int64_t i = 0; i < shape_.span(); ++i) set_offset(i, u(rng()));
}

void Tensor::poison() {
    const size_t n = static_cast<size_t>(shape_.span()) * dtype_size(dt_);
    const bool floating = dt_ == ANYDNN_DATA_FLOAT || dt_ == ANYDNN_DATA_DOUBLE || dt_ == ANYDNN_DATA_HALF ||
                          dt_ == ANYDNN_DATA_BFLOAT16;
    // 0xff bytes are a NaN in every floating type.
    std::memset(data(), floating ? 0xff : 0x5a, n);
}

void Tensor::copy_from(const Tensor &o) {
    std::memcpy(data(), o.data(), static_cast<size_t>(shape_.span()) * dtype_size(dt_));
}

bool Tensor::guards_intact() const {
    const size_t end = base_ + 2 * kGuard + static_cast<size_t>(shape_.span()) * dtype_size(dt_);
    for (size_t i = 0; i < kGuard; ++i)
        if (bytes_[base_ + i] != kGuardByte || bytes_[end - 1 - i] != kGuardByte) return false;
    return true;
}

bool Tensor::gaps_equal(const Tensor &o) const {
    std::vector<char> is_elem(static_cast<size_t>(shape_.span()), 0);
    for_each_index(shape_.dims, [&](const std::vector<int> &idx) { is_elem[offset(idx)] = 1; });
    const size_t es = dtype_size(dt_);
    for (int64_t i = 0; i < shape_.span(); ++i)
        if (!is_elem[i] &&
            std::memcmp(static_cast<const char *>(data()) + i * es, static_cast<const char *>(o.data()) + i * es,
                        es) != 0)
            return false;
    return true;
}

std::vector<double> Tensor::values() const {
    std::vector<double> v;
    v.reserve(static_cast<size_t>(shape_.elements()));
    for_each_index(shape_.dims, [&](const std::vector<int> &idx) { v.push_back(at(idx)); });
    return v;
}

void for_each_index(const std::vector<int> &dims, const std::function<void(const std::vector<int> &)> &fn) {
    std::vector<int> idx(dims.size(), 0);
    int64_t total = 1;
    for (int d : dims) total *= d;
    for (int64_t n = 0; n < total; ++n) {
        fn(idx);
        for (int i = int(dims.size()) - 1; i >= 0; --i) {
            if (++idx[i] < dims[i]) break;
            idx[i] = 0;
        }
    }
}

double rel_l2(const std::vector<double> &out, const std::vector<double> &ref) {
    double num = 0, den = 0;
    for (size_t i = 0; i < out.size(); ++i) {
        num += (out[i] - ref[i]) * (out[i] - ref[i]);
        den += ref[i] * ref[i];
    }
    return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

void expect_close(const std::vector<double> &out, const std::vector<double> &ref, double rel_tol, double abs_tol,
                  const std::string &what) {
    ASSERT_EQ(out.size(), ref.size()) << what;
    size_t bad = 0;
    for (size_t i = 0; i < out.size(); ++i) {
        const bool ok = std::isnan(ref[i]) ? std::isnan(out[i])
                                           : std::fabs(out[i] - ref[i]) <= abs_tol + rel_tol * std::fabs(ref[i]);
        if (!ok && bad++ < 5)
            ADD_FAILURE() << what << ": element " << i << " is " << out[i] << ", expected " << ref[i]
                          << " (seed " << seed() << ")";
    }
    EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << out.size() << " elements out of tolerance";
    // Over the whole tensor in L2 (a bias shared by all elements, each
    // within its bound, shows here): the relative bound plus one element's
    // absolute one. Relative alone failed where cancellation left one small
    // output beside zeros (9 outputs, 8 of them relu's zeros, the ninth
    // 0.0067 off by 9e-7 against an absolute bound of 2.3e-4).
    double num = 0, den = 0;
    for (size_t i = 0; i < out.size(); ++i)
        if (!std::isnan(ref[i])) {
            num += (out[i] - ref[i]) * (out[i] - ref[i]);
            den += ref[i] * ref[i];
        }
    EXPECT_LE(std::sqrt(num), rel_tol * std::sqrt(den) + abs_tol) << what << " (seed " << seed() << ")";
}

}  // namespace anydnn_test
